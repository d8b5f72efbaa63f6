// Logs (pino): JSON lines for machines, or pretty coloured lines for people at a terminal
// (pino-pretty, formatting in this process so nothing is lost at exit). Secrets never reach a log
// line: credentials are redacted by path.
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { currentRequestScope } from './request-scope.js';
import { activeTraceIds } from './telemetry/tracing.js';

export type { Logger };

/** Names whose values are credentials wherever they appear in a log object (one level deep too). */
const SECRET_KEYS = ['password', 'databaseUrl', 'token', 'accessToken', 'refreshToken', 'secret', 'apiKey', 'authorization', 'cookie'];

const chindings = pino.symbols.chindingsSym;

/**
 * Every line written while a request runs carries its id, whichever logger wrote it: the request
 * scope (AsyncLocalStorage) supplies it unless the logger is already a child bound to it.
 */
function requestIdMixin(mergeObject: object, _level: number, logger: unknown): object {
  // With OpenTelemetry on, the active span's trace and span ids too (trace_id, span_id, as
  // OpenTelemetry's pino instrumentation names them), so a line leads to its trace.
  const traced = activeTraceIds();
  const scope = currentRequestScope();
  if (!scope || 'requestId' in mergeObject) return traced ?? {};
  const bound = (logger as Record<symbol, unknown>)[chindings];
  if (typeof bound === 'string' && bound.includes('"requestId":')) return traced ?? {};
  return traced ? { requestId: scope.requestId, ...traced } : { requestId: scope.requestId };
}

export type LogFormat = 'pretty' | 'json';

/** A logger on standard output (JSON or pretty), or JSON on `destination` (tests capture lines this way). */
export function createLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  const options = {
    level,
    base: { service: 'gateway' },
    mixin: requestIdMixin,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', ...SECRET_KEYS, ...SECRET_KEYS.map((key) => `*.${key}`)],
      censor: '[redacted]',
    },
  };
  if (destination) return pino(options, destination);
  if (format === 'pretty') return pino(options, pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', singleLine: true, sync: true }));
  // Written asynchronously: a request's log line never waits for standard output (pino flushes
  // what is pending when the process exits).
  return pino(options, pino.destination({ dest: 1, sync: false }));
}

/** Hides the password of a connection string so it can be logged. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '[unparseable url]';
  }
}
