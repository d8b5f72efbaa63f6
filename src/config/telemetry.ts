// OpenTelemetry (docs/operating.md "Traces, metrics and logs over OTLP"): off unless an OTLP endpoint is set.
// The variables are OpenTelemetry's own; the SDK reads the others it knows (OTEL_TRACES_SAMPLER,
// OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*, ...) as it reads them anywhere.
import { z } from 'zod';
import { booleanText } from './values.js';

const otlpUrl = z.string().regex(/^https?:\/\/[^\s]+$/, 'must be an http:// or https:// URL');

export const telemetryVariables = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl
    .optional()
    .describe(
      'OTLP/HTTP collector base URL (e.g. http://otel-collector:4318): traces, metrics and logs go to its /v1/traces, /v1/metrics and /v1/logs. Unset (and no OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): OpenTelemetry is off and not even loaded. The SDK reads the other standard OTEL_* variables itself (OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_RESOURCE_ATTRIBUTES, ...).',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl.optional().describe('Full OTLP/HTTP URL for traces only (e.g. http://otel-collector:4318/v1/traces); turns OpenTelemetry on too.'),
  OTEL_SERVICE_NAME: z.string().min(1).default('data-platform-gateway').describe("The `service.name` of this gateway's traces, metrics and logs."),
  OTEL_SDK_DISABLED: booleanText.default(false).describe('true: OpenTelemetry stays off even with an endpoint set.'),
});

type TelemetryEnvironment = z.infer<typeof telemetryVariables>;

export function telemetrySettings(e: TelemetryEnvironment) {
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_ENDPOINT;
  return {
    /** Unset: OpenTelemetry off (src/main.ts then never imports its SDK). */
    ...(endpoint && !e.OTEL_SDK_DISABLED ? { otlpEndpoint: endpoint } : {}),
    serviceName: e.OTEL_SERVICE_NAME,
  };
}

export type TelemetrySettings = ReturnType<typeof telemetrySettings>;
