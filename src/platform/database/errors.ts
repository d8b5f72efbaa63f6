// Recognises "the database cannot be reached" among the errors pg and Prisma raise, so callers get
// a 503 they can retry instead of a generic 500.
import { GatewayError } from '../../errors.js';

export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is unavailable at the moment; try again shortly.';

/** The answer to a call the database could not serve: a 503 the caller may retry. */
export function databaseUnavailable(cause?: unknown): GatewayError {
  return new GatewayError('DATABASE_UNAVAILABLE', DATABASE_UNAVAILABLE_MESSAGE, { cause });
}

// SQLSTATE classes/codes: 08 connection exception, 57P01-57P03 shutdown / cannot connect now,
// 53300 too many connections, 55000 with "not currently accepting connections".
// 08P01 (protocol violation) is excluded: a malformed statement causes it, not an outage.
const UNAVAILABLE_SQLSTATE = /^(08(?!P01)...|57P0[123]|53300)$/;
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
// Prisma: can't reach server, timed out, closed the connection, pool timeout.
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
// A raw query (Prisma's P2010) says why it failed only in meta.driverAdapterError.cause: these kinds,
// or kind "postgres" with the SQLSTATE in originalCode.
const UNAVAILABLE_ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
// pg's "Client has encountered a connection error and is not queryable" / "Client was closed and is not
// queryable": a pooled connection the server dropped (e.g. while it restarted).
const UNAVAILABLE_MESSAGES =
  /not currently accepting connections|Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|the database system is (starting up|shutting down)|is not queryable/i;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const e = error as { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
  for (const code of [e.code, e.originalCode]) {
    if (typeof code !== 'string') continue;
    if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE_CODES.has(code) || UNAVAILABLE_PRISMA_CODES.has(code)) return true;
  }
  if (typeof e.kind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  return isDatabaseUnavailable(e.cause, depth + 1) || isDatabaseUnavailable(e.meta?.driverAdapterError, depth + 1);
}

/**
 * True when Prisma refused a write because a unique column already holds the value: P2002 from its
 * model API, or a raw statement's P2010 whose adapter error is a unique violation (SQLSTATE 23505).
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, meta } = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } } };
  if (code === 'P2002') return true;
  const cause = code === 'P2010' ? meta?.driverAdapterError?.cause : undefined;
  return cause?.kind === 'UniqueConstraintViolation' || cause?.originalCode === '23505';
}

/** True when PostgreSQL refused a text value it cannot hold (a NUL character, invalid UTF-8), or
 * Prisma could not pass one on (an unpaired surrogate: its JSON reader stops at the escape). */
export function isUnstorableText(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const e = error as { code?: unknown; originalCode?: unknown; message?: unknown; cause?: unknown };
  if (e.code === '22021' || e.code === '22P05' || e.originalCode === '22021' || e.originalCode === '22P05') return true;
  if (typeof e.message === 'string' && /invalid byte sequence for encoding|unsupported Unicode escape sequence|\\u0000 cannot be converted|unexpected end of hex escape/.test(e.message)) return true;
  return isUnstorableText(e.cause, depth + 1);
}
