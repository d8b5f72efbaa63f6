// Configuration, parsed once at start-up from the environment into one frozen, typed object.
// Each subsystem declares its variables and the settings made of them in src/config/<subsystem>.ts;
// its settings' type is inferred from there. Every bad setting is reported at once; nothing else in
// the code reads process.env. A variable marked secret (`.meta(SECRET)`) may instead be read from the
// file its `<NAME>_FILE` variable names, as Docker and Kubernetes mount secrets.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { alertingProblems, alertingSettings, alertingVariables } from './config/alerting.js';
import { authProblems, authSettings, authVariables } from './config/auth.js';
import { connectorSettings, connectorVariables } from './config/connectors.js';
import { databaseSettings, databaseVariables } from './config/database.js';
import { datasetSettings, datasetVariables } from './config/datasets.js';
import { graphqlLimitSettings, graphqlSettings, graphqlVariables } from './config/graphql.js';
import { httpSettings, httpVariables, jsonLimitSettings } from './config/http.js';
import { ingestionProblems, ingestionSettings, ingestionVariables } from './config/ingestion.js';
import { jobSettings, jobVariables } from './config/jobs.js';
import { liveSettings, liveVariables } from './config/live.js';
import { metricsSettings, metricsVariables } from './config/metrics.js';
import { fileSettings, objectStoreSettings, objectStoreVariables } from './config/object-store.js';
import { piiSettings, piiVariables } from './config/pii.js';
import { settingProblems } from './config/problems.js';
import { queryEngineSettings, queryEngineVariables, templateSettings } from './config/query-engine.js';
import { rateLimitSettings, rateLimitVariables } from './config/rate-limits.js';
import { scaleProblems, scaleSettings, scaleVariables } from './config/scale.js';
import { serverSettings, serverVariables } from './config/server.js';
import { telemetrySettings, telemetryVariables } from './config/telemetry.js';

export { isLoopbackHost } from './config/server.js';

/** Environment variables the gateway reads, with their defaults, subsystem by subsystem; docs/configuration.md is generated from it. */
export const environmentSchema = z.object({
  ...serverVariables.shape,
  ...databaseVariables.shape,
  ...httpVariables.shape,
  ...graphqlVariables.shape,
  ...liveVariables.shape,
  ...jobVariables.shape,
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
  ...telemetryVariables.shape,
});

type Environment = z.infer<typeof environmentSchema>;

/** The variables holding a secret: each may be given as `<NAME>_FILE` instead, a file that holds it. */
export const secretVariables: readonly string[] = Object.entries(environmentSchema.shape)
  .filter(([, field]) => (field.meta() as { secret?: boolean } | undefined)?.secret === true)
  .map(([name]) => name);

/**
 * Reads each `<NAME>_FILE` of a secret variable into `<NAME>` (one trailing line break dropped, as a
 * file written by `echo` or an editor ends). Setting both, or naming a file that cannot be read or is
 * empty, is a problem reported with the others. Returns where each value read came from.
 */
function readSecretFiles(env: Record<string, string>, problems: string[]): Map<string, string> {
  const readFrom = new Map<string, string>();
  for (const name of secretVariables) {
    const file = env[`${name}_FILE`];
    if (file === undefined) continue;
    if (env[name] !== undefined) {
      problems.push(`${name} and ${name}_FILE are both set: give the secret one way`);
      continue;
    }
    let value: string;
    try {
      value = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      problems.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      continue;
    }
    if (value === '') {
      problems.push(`${name}_FILE: ${file} is empty`);
      continue;
    }
    env[name] = value;
    readFrom.set(name, file);
  }
  return readFrom;
}

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
    jobs: jobSettings(e),
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
    telemetry: telemetrySettings(e),
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
  const present = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
  const fileProblems: string[] = [];
  const readFrom = readSecretFiles(present, fileProblems);
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success || fileProblems.length > 0) {
    const issues = parsed.error?.issues ?? [];
    const problems = [
      ...fileProblems,
      ...settingProblems(environmentSchema, present, issues).map((problem) => {
        const name = problem.slice(0, problem.indexOf(':'));
        const file = readFrom.get(name);
        return file ? `${problem} (read from ${name}_FILE, ${file})` : problem;
      }),
    ];
    // The settings that involve several variables are checked too, among the good values (each bad
    // one left at its default), so that fixing the first report does not reveal a second one.
    const refused = new Set(issues.map((issue) => String(issue.path[0])));
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
