/**
 * Student's t distribution: the one module that imports the statistics package, so the exact
 * quantiles and CDF come from a maintained implementation (stdlib's, via the regularised
 * incomplete beta function) rather than a normal approximation. The comparison route imports it;
 * the JUnit report (with a base run) and the MCP server's compare_runs load it as `#student-t`, a lazy
 * module shipped beside their bundles (infra/constructs/app-function.ts LAZY_MODULES).
 */
import cdf from '@stdlib/stats-base-dists-t-cdf';
import quantile from '@stdlib/stats-base-dists-t-quantile';
import type { StudentT } from './comparison-stats.js';

/** The p quantile of Student's t with `df` degrees of freedom. */
export function tQuantile(p: number, df: number): number {
  return quantile(p, df);
}

/** P(T ≤ x) for Student's t with `df` degrees of freedom. */
export function tCdf(x: number, df: number): number {
  return cdf(x, df);
}

/** Both, as the comparison takes them. */
export const studentT: StudentT = { quantile: tQuantile, cdf: tCdf };
