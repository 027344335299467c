import protobuf from 'protobufjs/light.js';
import descriptor from './proto/otlp.json' with { type: 'json' };

/**
 * The three OTLP messages the trace route reads and writes, with protobufjs's static API (decode,
 * encode, fromObject, toObject): the interface both of their implementations share.
 */
export interface OtlpMessageType {
  decode(bytes: Uint8Array): object;
  encode(message: object): { finish(): Uint8Array };
  fromObject(value: Record<string, unknown>): object;
  toObject(message: object, options?: protobuf.IConversionOptions): Record<string, unknown>;
}

export interface OtlpMessages {
  ExportTraceServiceRequest: OtlpMessageType;
  ExportTraceServiceResponse: OtlpMessageType;
  Status: OtlpMessageType;
}

/** The full names of OtlpMessages' types in the vendored definitions (./proto). */
export const OTLP_MESSAGE_NAMES: Record<keyof OtlpMessages, string> = {
  ExportTraceServiceRequest: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
  ExportTraceServiceResponse: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
  Status: 'google.rpc.Status',
};

/**
 * `#otlp-messages` where nothing is generated (the local server, the CLIs, the tests): protobufjs
 * reflection over the descriptor `./proto/otlp.json`, which builds each type's codec on first use.
 * A function bundle resolves `#otlp-messages` to `.build/otlp/messages.js` instead: the same
 * types as protobufjs static code (infra/otlp-code.ts), over protobufjs/minimal, with nothing
 * built at load or on first use. test/integration/otlp-code.test.ts checks that both answer alike.
 */
const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
export const otlpMessages: OtlpMessages = {
  ExportTraceServiceRequest: root.lookupType(OTLP_MESSAGE_NAMES.ExportTraceServiceRequest),
  ExportTraceServiceResponse: root.lookupType(OTLP_MESSAGE_NAMES.ExportTraceServiceResponse),
  Status: root.lookupType(OTLP_MESSAGE_NAMES.Status),
};
