import * as Type from '@sinclair/typebox';

/**
 * The JSON form of OTLP's ExportTraceServiceRequest and ExportTraceServiceResponse, for the API
 * reference only: POST /otel/v1/traces decodes its body with the official protobuf definitions
 * (shared/domain/telemetry/otlp.ts), in binary protobuf or JSON, and ignores unknown fields.
 */
/** OTLP/HTTP's binary encoding; the route takes and answers it beside JSON. */
export const PROTOBUF = 'application/x-protobuf';

const KeyValue = Type.Object({
  key: Type.String(),
  value: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'AnyValue: stringValue, intValue, doubleValue, boolValue, arrayValue, kvlistValue or bytesValue',
    },
  ),
});

export const ExportTraceServiceRequest = Type.Object(
  {
    resourceSpans: Type.Optional(
      Type.Array(
        Type.Object({
          resource: Type.Optional(Type.Object({ attributes: Type.Optional(Type.Array(KeyValue)) })),
          scopeSpans: Type.Optional(
            Type.Array(
              Type.Object({
                scope: Type.Optional(
                  Type.Object({ name: Type.Optional(Type.String()), version: Type.Optional(Type.String()) }),
                ),
                spans: Type.Optional(
                  Type.Array(
                    Type.Object({
                      traceId: Type.String({ description: '32 hex characters' }),
                      spanId: Type.String({ description: '16 hex characters' }),
                      parentSpanId: Type.Optional(
                        Type.String({ description: '16 hex characters; empty for a root span' }),
                      ),
                      name: Type.String(),
                      kind: Type.Optional(Type.Integer()),
                      startTimeUnixNano: Type.Union([Type.String(), Type.Integer()]),
                      endTimeUnixNano: Type.Union([Type.String(), Type.Integer()]),
                      attributes: Type.Optional(Type.Array(KeyValue)),
                      status: Type.Optional(
                        Type.Object({
                          code: Type.Optional(Type.Integer({ description: '0 unset, 1 ok, 2 error' })),
                          message: Type.Optional(Type.String()),
                        }),
                      ),
                    }),
                    { maxItems: 1000 },
                  ),
                ),
              }),
            ),
          ),
        }),
      ),
    ),
  },
  {
    description:
      'OTLP ExportTraceServiceRequest (application/json or application/x-protobuf, optionally Content-Encoding: gzip); at most 5 MiB decoded and 1000 spans',
  },
);

export const ExportTraceServiceResponse = Type.Object(
  {
    partialSuccess: Type.Optional(
      Type.Object({
        rejectedSpans: Type.Integer({ minimum: 0, description: 'spans that could not be placed' }),
        errorMessage: Type.String({ description: 'why, for the first few' }),
      }),
    ),
  },
  {
    description:
      'OTLP ExportTraceServiceResponse, in the request encoding; partialSuccess only when spans were rejected',
  },
);
