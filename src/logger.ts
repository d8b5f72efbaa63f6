// Structured JSON logs (pino). Secrets never reach a log line: credentials are redacted by path.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'gateway' },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.databaseUrl', 'databaseUrl'],
      censor: '[redacted]',
    },
  });
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
