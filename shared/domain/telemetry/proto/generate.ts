import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import protobuf from 'protobufjs';

/**
 * Builds the protobufjs descriptor (`otlp.json`) from the vendored .proto files, so functions
 * import plain JSON and never parse .proto text at run time. `--check` exits 1 when it is stale.
 */
export const PROTO_FILES = [
  'opentelemetry/proto/common/v1/common.proto',
  'opentelemetry/proto/resource/v1/resource.proto',
  'opentelemetry/proto/trace/v1/trace.proto',
  'opentelemetry/proto/collector/trace/v1/trace_service.proto',
  'google/rpc/status.proto',
];

const here = import.meta.dirname;
/** The folder of the vendored .proto files (PROTO_FILES are relative to it). */
export const PROTO_DIR = here;
export const DESCRIPTOR_PATH = resolve(here, 'otlp.json');

export function buildDescriptor(): string {
  const root = new protobuf.Root();
  for (const file of PROTO_FILES) protobuf.parse(readFileSync(resolve(here, file), 'utf8'), root, { keepCase: false });
  root.resolveAll();
  return `${JSON.stringify(root.toJSON(), null, 1)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(here, 'generate.ts')) {
  const text = buildDescriptor();
  if (process.argv.includes('--check')) {
    if (readFileSync(DESCRIPTOR_PATH, 'utf8') !== text) {
      console.error('otlp.json is stale: run npx tsx shared/domain/telemetry/proto/generate.ts');
      process.exit(1);
    }
  } else {
    writeFileSync(DESCRIPTOR_PATH, text);
    console.log(`wrote ${DESCRIPTOR_PATH}`);
  }
}
