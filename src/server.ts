import os from 'node:os';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { restEndpoints } from '../rest/endpoints.js';
import type { Config } from './config.js';
import { createContextFactory } from './context.js';
import { StartupError } from './errors.js';
import { createOperationPipeline } from './graphql/pipeline/setup.js';
import { SharedRateLimiter } from './auth/shared-rate-limit.js';
import { answerClientErrors } from './http/client-errors.js';
import { useCrossOrigin } from './http/use-cross-origin.js';
import { useAuth } from './http/use-auth.js';
import { useObservability } from './http/use-observability.js';
import { useRequestId } from './http/use-request-id.js';
import { useSecurityHeaders } from './http/use-security-headers.js';
import { useRequestTimeout } from './http/use-request-timeout.js';
import type { Logger } from './logger.js';
import type { AlertEvaluator } from './modules/alert-rules/index.js';
import { openDatabase, type Database } from './platform/database/database.js';
import { readListTableSizes } from './platform/lists/list-query.js';
import type { MetricsSampler } from './platform/metrics-store/sampler.js';
import { EMBEDDED_LINK_PREFIX } from './platform/object-store/embedded.js';
import { createPlatform, createServices } from './services.js';
import { createAccessControl } from './auth/setup.js';
import { startGraphQLHttp } from './transports/graphql-http.js';
import { metricFamilies, prometheusTransport } from './transports/prometheus.js';
import { grafanaTransport } from './transports/grafana.js';
import { withKeptAnswerDoor } from './transports/kept-answer.js';
import { startLiveTransport } from './transports/live.js';
import { operatorTransport } from './transports/operator.js';
import { restTransport } from './transports/rest.js';
import { mountTransports, stopTransports } from './transports/transport.js';
import { startBackgroundWork } from './background.js';
import { GATEWAY_VERSION } from './version.js';
import { tracedRequests } from './telemetry/tracing.js';
// Composition: database, services, one executable schema, and the HTTP transports around it.

export interface Gateway {
  /** Base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  database: Database;
  /** Runs Live alert rules on its own tick; `cycle(atMs)` runs one cycle at a given time (tests inject time). */
  alertEvaluator: AlertEvaluator;
  /** Samples the gateway's metrics into the embedded store (absent with PROMETHEUS_URL); `sample(atMs)` takes one. */
  metricsSampler: MetricsSampler | undefined;
  /**
   * Turns /readyz to 503 at once and keeps serving for SHUTDOWN_DRAIN_SECONDS (a balancer stops
   * sending new requests meanwhile), then stops taking requests, lets running ones finish, and
   * closes the database (and the embedded server).
   */
  /** Open WebSocket connections, SSE streams and shared evaluations of subscriptions. */
  subscriptions: { stats(): { webSockets: number; streams: number; evaluations: number; started: number } };
  stop(): Promise<void>;
  /** True from the moment stop() is called. */
  readonly draining: boolean;
}

/** Refuses a port another process holds before anything else starts (database, migrations). */
async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') reject(new StartupError(`port ${port} on ${host} is already in use (another gateway?): stop that process or set PORT to a free port`));
      else if (error.code === 'EACCES') reject(new StartupError(`port ${port} on ${host} needs privileges this user lacks: set PORT to a port above 1023`));
      else reject(error);
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

export async function startGateway(config: Config, logger: Logger): Promise<Gateway> {
  await ensurePortFree(config.http.host, config.http.port);
  const database = await openDatabase(config.database, logger, config.scale.listenUrl ? { listenUrl: config.scale.listenUrl } : {});
  try {
    return await serve(config, logger, database);
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}

async function serve(config: Config, logger: Logger, database: Database): Promise<Gateway> {
  // Lists guard their counts by the tables' sizes: read them now so that no request waits for them.
  await readListTableSizes(database.prisma);
  // Known once the server listens (PORT=0 picks a port); embedded links are made only after that.
  let gatewayUrl = '';
  const platform = await createPlatform(config, database, logger, () => gatewayUrl, GATEWAY_VERSION);
  const { eventBus, objectStore, probes, metrics, metricsStore, prometheus, published, systemEvents } = platform;
  const services = createServices(database, published, config, platform, logger);
  logger.info(`PII detector: ${services.pii.detectorName}; metrics source: ${services.metrics.sourceName}`);
  await services.history.setRetention(config.live.versionRetention);
  const seeded = await services.connectors.seedBuiltIns();
  if (seeded > 0) logger.info(`connector registry: ${seeded} built-in connectors added`);
  // Access control (src/auth): every root field is guarded by the API ids its module declares
  // (src/modules/<domain>/permissions.ts); REST entries pass the same check with their own ids.
  const { schema, apiIdsByField, checks, planOf, execute } = createOperationPipeline({ config, logger, prisma: database.prisma, gatewayVersion: GATEWAY_VERSION, restEntries: restEndpoints });
  const { rateLimiter, accessControl, authenticator } = createAccessControl(config, database, logger);
  const createContext = createContextFactory(services, logger, accessControl);

  const app = express();
  app.disable('x-powered-by');
  // requestTimeout: a client that stalls mid-request is answered 408 (client-errors.ts) once the
  // whole request has taken this long, instead of holding its connection until REQUEST_TIMEOUT_MS.
  // The kept-answer door is set in front of the app below, once the app is.
  let handle: http.RequestListener = app;
  const httpServer = http.createServer(
    { requestTimeout: config.http.bodyTimeoutMs, headersTimeout: Math.min(60_000, config.http.bodyTimeoutMs), connectionsCheckingInterval: Math.min(1000, config.http.bodyTimeoutMs / 4) },
    // Each request's span (when OpenTelemetry is on) spans both paths: the kept-answer door and express.
    tracedRequests((req, res) => handle(req, res)),
  );
  // The contract's responses carry `Keep-Alive: timeout=5` (Node's header follows this setting).
  httpServer.keepAliveTimeout = 5_000;
  answerClientErrors(httpServer, { bodyTimeoutMs: config.http.bodyTimeoutMs });
  let draining = false;

  // The doors (src/transports), in the order they are mounted; docs/architecture.md "One operation pipeline".
  const live = startLiveTransport({ httpServer, schema, services, logger, metrics, accessControl, authenticator, apiIdsByField, checks, planOf, live: config.live });
  const graphqlHttp = await startGraphQLHttp({ httpServer, schema, execute, config, published, planOf, metrics, rateLimiter, accessControl, createContext, checks });
  const metadata = metricsStore ? async () => metricFamilies(await metrics.snapshot()) : undefined;
  const rest = restTransport({ schema, execute, config, logger, createContext, published, planOf, gatewayVersion: GATEWAY_VERSION });
  const transports = [
    operatorTransport({ config, database, metrics, objectStore, logger, draining: () => draining, probes }),
    live,
    graphqlHttp,
    prometheusTransport({ prometheus, accessControl, logger, gatewayVersion: GATEWAY_VERSION, metadata, bodyLimitBytes: config.http.bodyLimitBytes }),
    grafanaTransport({ alertRules: services.alertRules, accessControl, logger }),
    rest,
  ];

  // What every request gets, whichever door answers it.
  const crossOrigin = { allowedOrigins: config.http.corsAllowedOrigins, loopbackHostsOnly: config.auth.mode === 'none', ownPolicyPrefixes: [EMBEDDED_LINK_PREFIX] };
  app.use(useRequestId());
  app.use(useSecurityHeaders());
  app.use(useCrossOrigin(crossOrigin));
  app.use(useObservability({ logger, metrics }));
  // While draining, answers ask clients to reconnect, which a balancer then sends to another copy.
  app.use((_req, res, next) => {
    if (draining) res.set('connection', 'close');
    next();
  });
  mountTransports(app, transports, { timeout: useRequestTimeout({ timeoutMs: config.http.requestTimeoutMs, logger }), authenticate: useAuth({ authenticator }) });
  handle = withKeptAnswerDoor(app, {
    config,
    logger,
    metrics,
    authenticator,
    accessControl,
    crossOrigin,
    checks,
    restReads: rest.keptReads,
    keptAnswerFor: graphqlHttp.keptAnswerFor,
    draining: () => draining,
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.http.port, config.http.host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  gatewayUrl = `http://${host}:${port}`;
  const background = startBackgroundWork({ config, database, logger, metrics, metricsStore, prometheus, services, systemEvents, instance: `${os.hostname()}:${port}` });
  let stopping: Promise<void> | undefined;
  return {
    url: gatewayUrl,
    database,
    alertEvaluator: background.alertEvaluator,
    metricsSampler: background.sampler,
    subscriptions: { stats: live.stats },
    get draining() {
      return draining;
    },
    stop() {
      stopping ??= (async () => {
        draining = true;
        if (config.scale.drainMs > 0) await new Promise((resolve) => setTimeout(resolve, config.scale.drainMs));
        await stopTransports(transports);
        services.live.events.close();
        await background.stop();
        await eventBus.close();
        await objectStore.close();
        if (rateLimiter instanceof SharedRateLimiter) rateLimiter.close();
        await database.close();
      })();
      return stopping;
    },
  };
}
