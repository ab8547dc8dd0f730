import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';

/** `POST /otel/v1/traces` answer (docs/spec/otel-service-queues.md §A.9). The body is raw OTLP, so it has no schema. */
export const ExportTraceRes = Type.Object({
  partial_success: Nullable(
    Type.Object({
      rejected_spans: Type.Integer(),
      error_message: Type.String(),
    }),
  ),
});

/**
 * The request body for the OpenAPI document: an OTLP `ExportTraceServiceRequest`. The route's own
 * parsers hand the raw bytes to the service, so these schemas leave out `type` and `required`
 * and accept the parsed body as it is.
 */
export const ExportTraceBody = {
  content: {
    'application/x-protobuf': {
      schema: Type.Unsafe<unknown>({
        title: 'ExportTraceServiceRequest',
        description:
          'OTLP ExportTraceServiceRequest, binary protobuf (opentelemetry-proto collector/trace/v1). Content-Encoding gzip or identity.',
      }),
    },
    'application/json': {
      schema: Type.Unsafe<unknown>({
        title: 'ExportTraceServiceRequestJson',
        description:
          'OTLP/JSON ExportTraceServiceRequest: hex trace/span ids, int64 as strings or numbers. Content-Encoding gzip or identity.',
        properties: { resourceSpans: { type: 'array', items: { type: 'object' } } },
      }),
    },
  },
};
