// Finds who is calling, by AUTH_MODE:
// - none: everyone is SYSTEM (allowed only on a loopback address; config.ts refuses anything else);
// - jwt: `Authorization: Bearer <jwt>`;
// - session: the `connect.sid` cookie, checked against the session store;
// and, in jwt and session mode, `x-api-key` for machine clients. No credentials is not a failure
// here: the caller is anonymous and the access check decides (public fields need none).
import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost, type Config } from '../config.js';
import { GatewayError, GENERIC_FAILURE_MESSAGE } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Database } from '../platform/database/database.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../platform/database/errors.js';
import { SYSTEM_CALLER, type Authentication } from './access.js';
import { API_KEY_HEADER, createApiKeyStore, createApiKeyVerifier } from './api-keys.js';
import { createJwtVerifier } from './jwt.js';
import { createSessionVerifier } from './session.js';

export interface Authenticator {
  mode: Config['auth']['mode'];
  /** Never rejects: a store that fails becomes the request's failure (503 when the database is down). */
  authenticate(headers: IncomingHttpHeaders): Authentication | Promise<Authentication>;
}

/**
 * A browser sends Origin on cross-origin requests; one that names another site than the one it
 * calls is a cross-site request, which must not ride on the session cookie (CSRF). Browsers send no
 * Origin on a GET they navigate to or embed (a link, a redirect, an <img>), but they do send
 * `Sec-Fetch-Site`: `cross-site` there is refused too, since some GET routes change state (the
 * original's publish routes). Server-side callers (the web console's backend) send neither.
 */
export function isCrossSite(headers: IncomingHttpHeaders, trustedOrigins: ReadonlySet<string> = new Set()): boolean {
  const origin = single(headers.origin);
  if (origin === undefined) return single(headers['sec-fetch-site'])?.toLowerCase() === 'cross-site';
  // An operator-named origin (a console whose proxy rewrites Host but forwards the browser's Origin).
  if (trustedOrigins.has(origin.toLowerCase())) return false;
  const host = single(headers['x-forwarded-host'])?.split(',')[0]?.trim() ?? headers.host;
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

const ANONYMOUS: Authentication = Object.freeze({});
const NONE: Authentication = Object.freeze({ caller: SYSTEM_CALLER });

function refused(message: string): Authentication {
  return { failure: new GatewayError('UNAUTHENTICATED', message) };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function createAuthenticator(settings: Config['auth'], database: Pick<Database, 'prisma' | 'pool'> & Partial<Pick<Database, 'changes'>>, logger: Logger, host: string): Authenticator {
  if (settings.mode === 'none') {
    // config.ts refuses this already; a hand-made Config must not slip past it either.
    if (!isLoopbackHost(host)) throw new Error(`AUTH_MODE=none is allowed only on a loopback HOST, not ${host}`);
    return { mode: 'none', authenticate: () => NONE };
  }

  const apiKeys = createApiKeyVerifier(createApiKeyStore(database.prisma), settings.cacheTtlMs, database.changes);
  const jwt = settings.mode === 'jwt' ? createJwtVerifier(settings.jwt!) : undefined;
  const session = settings.mode === 'session' ? createSessionVerifier({ ...settings.session!, cacheTtlMs: settings.cacheTtlMs }, database.pool) : undefined;
  const trustedOrigins = new Set((settings.session?.trustedOrigins ?? []).map((origin) => origin.toLowerCase()));

  async function find(headers: IncomingHttpHeaders): Promise<Authentication> {
    const apiKey = single(headers[API_KEY_HEADER]);
    if (apiKey !== undefined) return apiKeys.verify(apiKey);
    const authorization = headers.authorization;
    if (jwt) {
      if (authorization === undefined) return ANONYMOUS;
      const match = /^Bearer +(\S+) *$/i.exec(authorization);
      if (!match) return refused('Token verification failed: send the token as `Authorization: Bearer <jwt>`.');
      return jwt.verify(match[1]!);
    }
    if (authorization !== undefined) return refused('Bearer tokens are not accepted here (AUTH_MODE=session): send the session cookie or an API key.');
    const found = await session!.verify(headers.cookie);
    if (!found) return ANONYMOUS;
    if ('caller' in found && isCrossSite(headers, trustedOrigins)) {
      return { failure: new GatewayError('FORBIDDEN', 'A cross-site request cannot use the session cookie (its Origin is another site): call from the same site, or use an API key.') };
    }
    return found;
  }

  return {
    mode: settings.mode,
    async authenticate(headers) {
      try {
        return await find(headers);
      } catch (error) {
        if (isDatabaseUnavailable(error)) return { failure: databaseUnavailable() };
        logger.error({ err: error }, 'authentication failed unexpectedly');
        return { failure: new GatewayError('INTERNAL_SERVER_ERROR', GENERIC_FAILURE_MESSAGE) };
      }
    },
  };
}
