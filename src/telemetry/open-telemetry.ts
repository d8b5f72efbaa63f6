// OpenTelemetry's SDK, loaded only when an OTLP endpoint is configured (src/main.ts imports this file
// then, before anything it instruments): traces, metrics and logs over OTLP, configured by the
// standard OTEL_* variables as every OpenTelemetry SDK is (the exporters, protocol, headers, sampler
// and batching are the SDK's reading of the environment, not ours).
//
// What each package adds:
// - @opentelemetry/sdk-node: the tracer, meter and logger providers, the OTLP exporters and W3C
//   trace-context propagation, all set from OTEL_* variables;
// - instrumentation-pg: a span per PostgreSQL statement (Prisma's and ours alike go through `pg`);
// - instrumentation-kafkajs: a span per Kafka send;
// - instrumentation-aws-sdk: a span per S3 call (S3.PutObject, ...);
// - instrumentation-undici: a span per fetch (Druid, Prometheus, Alertmanager, Presidio, webhooks),
//   with the traceparent header passed on;
// - instrumentation-http: traceparent on node:http requests (the AWS SDK's), no incoming spans
//   (src/telemetry/tracing.ts makes the request's span, named by the operation it ran);
// - instrumentation-pino: every log line also sent as an OTLP log record;
// - import-in-the-middle: the ESM loader hook through which the instrumentations patch the modules
//   this ES-module gateway imports, asked to wrap only the modules they name.
import { register } from 'node:module';
import * as api from '@opentelemetry/api';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import type { TelemetrySettings } from '../config/telemetry.js';
import { enableTracing } from './tracing.js';

export interface OpenTelemetry {
  /** Sends what is pending and stops the exporters (the gateway's last step when it stops). */
  shutdown(): Promise<void>;
}

export async function startOpenTelemetry(settings: TelemetrySettings, version: string): Promise<OpenTelemetry> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const [{ NodeSDK }, { PgInstrumentation }, { KafkaJsInstrumentation }, { AwsInstrumentation }, { UndiciInstrumentation }, { HttpInstrumentation }, { PinoInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-kafkajs'),
    import('@opentelemetry/instrumentation-aws-sdk'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pino'),
  ]);
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    instrumentations: [
      // Statements without an operation around them (the sampler, LISTEN, leases) would each be a
      // trace of their own; parameter values are never recorded (they can be anything a caller sent).
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      new KafkaJsInstrumentation(),
      new AwsInstrumentation({ suppressInternalInstrumentation: true }),
      new UndiciInstrumentation(),
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true, requireParentforOutgoingSpans: true }),
      // The trace ids are put on every line by src/logger.ts itself (in tests too).
      new PinoInstrumentation({ disableLogCorrelation: true }),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  enableTracing(api, version);
  return { shutdown: () => sdk.shutdown() };
}
