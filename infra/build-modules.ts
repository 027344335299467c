/**
 * Everything a function bundle is built from that is generated, never committed, written in one
 * call before bundling: by the CDK app (infra/app.ts), the bundle benchmarks (bench/bundles.ts) and
 * the bundling test. Each step leaves a file whose content is already right alone.
 */
import { writeFlatPackages } from './flat-packages.js';
import { writeLazyModules } from './lazy-modules.js';
import { writeMcpSdk } from './mcp-sdk.js';
import { writeOtlpCode } from './otlp-code.js';
import { writeValidators } from './validators.js';

export async function writeBuildModules(): Promise<void> {
  // The routes' validators (injected ahead of each handler) and the fixed LLM answers' (#answer-validators).
  await writeValidators();
  // The OTLP messages as static code (#otlp-messages).
  await writeOtlpCode();
  // Student's t and Nunjucks scope-hoisted (FLAT_PACKAGES).
  await writeFlatPackages();
  // The MCP SDK's server entries without what the server never runs (MCP_SDK_ENTRIES).
  await writeMcpSdk();
  // The modules shipped beside the bundles that import them (LAZY_MODULES).
  await writeLazyModules();
}
