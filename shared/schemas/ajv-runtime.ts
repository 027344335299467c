import * as equalModule from 'ajv/dist/runtime/equal.js';
import * as ucs2lengthModule from 'ajv/dist/runtime/ucs2length.js';
import { routeFormats } from './route-formats.js';

/**
 * The helpers ajv's generated code calls, as one ES module: the validators precompiled at build
 * time (.build/validators/) import them from here. The same function objects ajv uses
 * when it compiles at load, read through whichever CommonJS interop the loader applies; the
 * formats are route-formats.ts (ajv-formats' definitions, checked against it by a unit test).
 */
type Exports = Record<string, unknown>;
const cjs = (ns: object): Exports => {
  const d = (ns as { default?: unknown }).default;
  return d !== null && typeof d === 'object' ? (d as Exports) : (ns as Exports);
};
const fn = (ns: object): unknown => {
  const m = cjs(ns).default;
  return typeof m === 'function' ? m : (ns as { default?: unknown }).default;
};

export const ucs2length = fn(ucs2lengthModule) as (s: string) => number;
export const equal = fn(equalModule) as (a: unknown, b: unknown) => boolean;
/** The formats of route schemas (shared/schemas/route-formats.ts: ajv-formats' definitions as ES module code). */
export const fullFormats: Record<string, unknown> = routeFormats;
