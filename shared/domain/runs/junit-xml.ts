/**
 * The JUnit XML writer: the one module that imports xmlbuilder2. Every name, message and text is
 * given to the writer as a value, never pasted into markup, so a case input holding `<&"'` or a
 * character XML cannot carry (a control character, a lone surrogate: replaced by U+FFFD) still
 * makes a well-formed document a CI server can read.
 */
import { create } from 'xmlbuilder2';

export interface JunitCase {
  classname: string;
  name: string;
  failure?: { message: string; text: string };
  error?: { message: string; text: string };
}

export interface JunitSuite {
  name: string;
  cases: JunitCase[];
}

const count = (cases: readonly JunitCase[], kind: 'failure' | 'error') => cases.filter((c) => c[kind]).length;

/** `<testsuites>` of these suites, with exact tests/failures/errors counts at both levels. */
export function junitXml(name: string, suites: readonly JunitSuite[]): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' });
  const all = suites.flatMap((s) => s.cases);
  const root = doc.ele('testsuites', {
    name,
    tests: String(all.length),
    failures: String(count(all, 'failure')),
    errors: String(count(all, 'error')),
  });
  for (const suite of suites) {
    const el = root.ele('testsuite', {
      name: suite.name,
      tests: String(suite.cases.length),
      failures: String(count(suite.cases, 'failure')),
      errors: String(count(suite.cases, 'error')),
    });
    for (const c of suite.cases) {
      const tc = el.ele('testcase', { classname: c.classname, name: c.name });
      if (c.failure) tc.ele('failure', { message: c.failure.message }).txt(c.failure.text);
      if (c.error) tc.ele('error', { message: c.error.message }).txt(c.error.text);
    }
  }
  return doc.end({ prettyPrint: true });
}
