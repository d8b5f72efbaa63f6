// Configuration, parsed once at start-up from the environment into one frozen, typed object.
// Each subsystem declares its variables and the settings made of them in src/config/<subsystem>.ts;
// its settings' type is inferred from there. Every bad setting is reported at once; nothing else in
// the code reads process.env.
import { z } from 'zod';
import { alertingProblems, alertingSettings, alertingVariables } from './config/alerting.js';
import { authProblems, authSettings, authVariables } from './config/auth.js';
import { connectorSettings, connectorVariables } from './config/connectors.js';
import { databaseSettings, databaseVariables } from './config/database.js';
import { datasetSettings, datasetVariables } from './config/datasets.js';
import { graphqlLimitSettings, graphqlSettings, graphqlVariables } from './config/graphql.js';
import { httpSettings, httpVariables, jsonLimitSettings } from './config/http.js';
import { ingestionProblems, ingestionSettings, ingestionVariables } from './config/ingestion.js';
import { liveSettings, liveVariables } from './config/live.js';
import { metricsSettings, metricsVariables } from './config/metrics.js';
import { fileSettings, objectStoreSettings, objectStoreVariables } from './config/object-store.js';
import { piiSettings, piiVariables } from './config/pii.js';
import { settingProblems } from './config/problems.js';
import { queryEngineSettings, queryEngineVariables, templateSettings } from './config/query-engine.js';
import { rateLimitSettings, rateLimitVariables } from './config/rate-limits.js';
import { scaleProblems, scaleSettings, scaleVariables } from './config/scale.js';
import { serverSettings, serverVariables } from './config/server.js';

export { isLoopbackHost } from './config/server.js';

/** Environment variables the gateway reads, with their defaults, subsystem by subsystem; docs/configuration.md and the README's table are generated from it. */
export const environmentSchema = z.object({
  ...serverVariables.shape,
  ...databaseVariables.shape,
  ...httpVariables.shape,
  ...graphqlVariables.shape,
  ...liveVariables.shape,
  ...authVariables.shape,
  ...rateLimitVariables.shape,
  ...ingestionVariables.shape,
  ...queryEngineVariables.shape,
  ...datasetVariables.shape,
  ...objectStoreVariables.shape,
  ...connectorVariables.shape,
  ...alertingVariables.shape,
  ...piiVariables.shape,
  ...metricsVariables.shape,
  ...scaleVariables.shape,
});

type Environment = z.infer<typeof environmentSchema>;

/** Settings that involve more than one subsystem's variables; every problem is reported at once. */
function crossProblems(e: Environment): string[] {
  return [...authProblems(e), ...ingestionProblems(e), ...alertingProblems(e), ...scaleProblems(e)];
}

function settings(e: Environment) {
  // The outside calls a request may wait for: an unset REQUEST_TIMEOUT_MS outlasts the slowest.
  const downstreamTimeoutsMs = [e.DB_STATEMENT_TIMEOUT_MS, e.QUERY_TIMEOUT_MS, e.KAFKA_TIMEOUT_MS, e.ALERT_MANAGER_TIMEOUT_MS, e.NOTIFY_TIMEOUT_MS, e.PII_SERVICE_TIMEOUT_MS, e.PROMETHEUS_TIMEOUT_MS];
  return {
    http: httpSettings(e, downstreamTimeoutsMs),
    ...serverSettings(e),
    database: databaseSettings(e),
    graphql: graphqlSettings(e),
    graphqlLimits: graphqlLimitSettings(e),
    live: liveSettings(e),
    jsonLimits: jsonLimitSettings(e),
    auth: authSettings(e),
    rateLimits: rateLimitSettings(e),
    templates: templateSettings(e),
    datasets: datasetSettings(e),
    objectStore: objectStoreSettings(e),
    files: fileSettings(e),
    connectors: connectorSettings(e),
    queryEngine: queryEngineSettings(e),
    ingestion: ingestionSettings(e),
    alerting: alertingSettings(e),
    pii: piiSettings(e),
    metrics: metricsSettings(e),
    scale: scaleSettings(e),
  };
}

export type Config = ReturnType<typeof settings>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty values count as unset, as in most .env tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const problems = settingProblems(environmentSchema, present, parsed.error.issues);
    // The settings that involve several variables are checked too, among the good values (each bad
    // one left at its default), so that fixing the first report does not reveal a second one.
    const refused = new Set(parsed.error.issues.map((issue) => String(issue.path[0])));
    const rest = environmentSchema.safeParse(Object.fromEntries(Object.entries(present).filter(([name]) => !refused.has(name))));
    if (rest.success) problems.push(...crossProblems(rest.data).filter((problem) => ![...refused].some((name) => problem.includes(name))));
    throw new ConfigError(problems);
  }
  const problems = crossProblems(parsed.data);
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(settings(parsed.data));
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
