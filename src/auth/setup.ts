// Access control made from the configuration: the permission policy, the rate limiter (in this
// process, or shared in PostgreSQL), and the authenticator every door uses; what was chosen is logged.
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Database } from '../platform/database/database.js';
import { AccessControl } from './access.js';
import { createAuthenticator } from './authenticate.js';
import { loadPolicy } from './policy.js';
import { RateLimiter } from './rate-limit.js';
import { SharedRateLimiter } from './shared-rate-limit.js';

export function createAccessControl(config: Config, database: Database, logger: Logger) {
  const policy = loadPolicy(config.auth.permissionsFile);
  const rateLimiter = config.scale.rateLimitStore === 'postgres' ? new SharedRateLimiter(database.pool, config.rateLimits, logger) : new RateLimiter(config.rateLimits);
  logger.info(`rate limits: ${describeRateLimits(config)}`);
  const accessControl = new AccessControl(policy, rateLimiter, { costPerToken: config.graphqlLimits.costPerToken });
  const authenticator = createAuthenticator(config.auth, database, logger, config.http.host);
  const jwt = config.auth.jwt;
  if (jwt && (!jwt.issuer || !jwt.audience)) {
    logger.warn(
      `authentication: JWT ${[!jwt.issuer && 'issuer (iss)', !jwt.audience && 'audience (aud)'].filter(Boolean).join(' and ')} not checked (JWT_VERIFY_ISSUER/JWT_VERIFY_AUDIENCE=false): any token signed with the configured key is accepted, whoever it was issued for`,
    );
  }
  logger.info(
    `authentication: ${config.auth.mode}${config.auth.mode === 'none' ? ' (every caller is SYSTEM; loopback only)' : ' (+ API keys)'}; roles from ${config.auth.permissionsFile ?? 'config/permissions.json'}`,
  );
  return { rateLimiter, accessControl, authenticator };
}

function describeRateLimits(config: Config): string {
  const { general, ingest } = config.rateLimits;
  const budget = (settings: { perSecond: number; burst: number }) => (settings.perSecond > 0 ? `${settings.perSecond}/s (burst ${settings.burst})` : 'off');
  const where = config.scale.rateLimitStore === 'postgres' ? 'kept in PostgreSQL, one budget per caller for every copy on this database' : 'kept in this process';
  return `${budget(general)} per caller, ingestion ${budget(ingest)}; ${where} (RATE_LIMIT_STORE=${config.scale.rateLimitStore})`;
}
