// Session cookies (AUTH_MODE=session): the contract's `connect.sid`, as express-session writes it
// (`s:<session id>.<HMAC-SHA256 of the id, base64 without padding>`, URL-encoded), looked up in
// the session store table (connect-pg-simple's layout: sid, sess, expire). The signature is
// checked before the database is asked anything, so a tampered cookie costs no query.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { GatewayError } from '../errors.js';
import type { Caller } from './access.js';
import { TtlCache } from './ttl-cache.js';

export interface SessionSettings {
  cookieName: string;
  /** Secrets the cookie may be signed with; express-session signs with the first, accepts any. */
  secrets: string[];
  cacheTtlMs: number;
  /** The store table (connect-pg-simple's layout), optionally schema-qualified; `session` by default. */
  table?: string;
  /** Where the record holds the user (an id string or an object with an id), as a dotted path. */
  userPath?: string;
  /** Where the record holds the roles, as a dotted path. */
  rolesPath?: string;
}

const MAX_COOKIE_LENGTH = 4096;

function mac(value: string, secret: string): string {
  return createHmac('sha256', secret).update(value).digest('base64').replace(/=+$/, '');
}

/** The cookie value express-session sets for a session id (before URL-encoding). */
export function signSessionId(sid: string, secret: string): string {
  return `s:${sid}.${mac(sid, secret)}`;
}

/** The session id of a signed cookie value, or undefined when no secret signed it. */
export function unsignSessionId(value: string, secrets: readonly string[]): string | undefined {
  if (!value.startsWith('s:')) return undefined;
  const signed = value.slice(2);
  const dot = signed.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const sid = signed.slice(0, dot);
  const offered = Buffer.from(signed.slice(dot + 1));
  for (const secret of secrets) {
    const expected = Buffer.from(mac(sid, secret));
    if (expected.length === offered.length && timingSafeEqual(expected, offered)) return sid;
  }
  return undefined;
}

/** The value of one cookie in a Cookie header (the first, as browsers send the most specific first). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}

function refused(message: string): GatewayError {
  return new GatewayError('UNAUTHENTICATED', message);
}

const object = (value: unknown): Record<string, unknown> | undefined => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

/**
 * The user a session document names: `user`, passport's `passport.user`, or the document itself,
 * each with an id (`id`, `sub`, `userId` or `user_id`) and a `roles` array.
 */
export function sessionUser(sess: unknown, paths: { userPath?: string; rolesPath?: string } = {}): { id: string; roles: string[] } | string {
  const document = object(sess);
  if (!document) return 'the session holds no user';
  if (paths.userPath || paths.rolesPath) return userAt(document, paths);
  for (const candidate of [object(document.user), object(object(document.passport)?.user), document]) {
    if (!candidate) continue;
    const id = [candidate.id, candidate.sub, candidate.userId, candidate.user_id].find((value) => typeof value === 'string' && value !== '');
    if (typeof id !== 'string') continue;
    const roles = candidate.roles;
    if (!Array.isArray(roles) || !roles.every((role) => typeof role === 'string')) return 'the session user has no roles';
    return { id: id.slice(0, 120), roles: roles };
  }
  return 'the session holds no user';
}

/** A value at a dotted path (own keys only). */
function at(document: Record<string, unknown>, path: string): unknown {
  let value: unknown = document;
  for (const key of path.split('.')) {
    const holder = object(value);
    value = holder && Object.hasOwn(holder, key) ? holder[key] : undefined;
  }
  return value;
}

/** The user of a record laid out as configured (the original console: passport.user is the id, roles at the top). */
function userAt(document: Record<string, unknown>, paths: { userPath?: string; rolesPath?: string }): { id: string; roles: string[] } | string {
  const user = at(document, paths.userPath ?? 'user');
  const userObject = object(user);
  const id = typeof user === 'string' ? user : [userObject?.id, userObject?.sub, userObject?.userId, userObject?.user_id].find((value) => typeof value === 'string');
  if (typeof id !== 'string' || id === '') return `the session holds no user at ${paths.userPath ?? 'user'}`;
  const roles = paths.rolesPath ? at(document, paths.rolesPath) : userObject?.roles;
  if (!Array.isArray(roles) || !roles.every((role) => typeof role === 'string')) return `the session user has no roles${paths.rolesPath ? ` at ${paths.rolesPath}` : ''}`;
  return { id: id.slice(0, 120), roles };
}

export interface SessionVerifier {
  /** undefined: the request carries no session cookie. */
  verify(cookieHeader: string | undefined): Promise<{ caller: Caller } | { failure: GatewayError } | undefined>;
}

export function createSessionVerifier(settings: SessionSettings, pool: pg.Pool): SessionVerifier {
  const cache = new TtlCache<string, Caller>(settings.cacheTtlMs);
  // The configured name, checked by the configuration's pattern, quoted part by part.
  const table = (settings.table ?? 'session')
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
  return {
    async verify(cookieHeader) {
      const value = cookieValue(cookieHeader, settings.cookieName);
      if (value === undefined) return undefined;
      if (value.length > MAX_COOKIE_LENGTH) return { failure: refused('Session verification failed: the session cookie is too long.') };
      const sid = unsignSessionId(value, settings.secrets);
      if (sid === undefined) return { failure: refused('Session verification failed: the session cookie is not signed by this service.') };
      const cached = cache.get(sid);
      if (cached) return { caller: cached };
      const found = await pool.query<{ sess: unknown; expire: Date }>(`SELECT sess, expire FROM ${table} WHERE sid = $1 AND expire > now()`, [sid]);
      const row = found.rows[0];
      if (!row) return { failure: refused('Session verification failed: the session has ended or does not exist.') };
      const sess = typeof row.sess === 'string' ? (JSON.parse(row.sess) as unknown) : row.sess;
      const user = sessionUser(sess, settings);
      if (typeof user === 'string') return { failure: refused(`Session verification failed: ${user}.`) };
      const caller: Caller = { id: user.id, roles: user.roles, via: 'session', expiresAt: new Date(row.expire).getTime() };
      cache.set(sid, caller);
      return { caller };
    },
  };
}
