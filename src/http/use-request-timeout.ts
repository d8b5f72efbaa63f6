// Bounds how long an API request may take (REQUEST_TIMEOUT_MS), whatever it waits for: a slow
// downstream, a pool that hands out no connection, a lock. When the time is up the caller gets the
// transport's failure (REST envelope or GraphQL error, 503 REQUEST_TIMEOUT) and whatever the
// handler writes later is dropped. The work itself is not cancelled (each downstream has its own
// timeout), so the message says a change may still take effect.
import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import { requestMsgid, sendFailure } from './envelope.js';
import { GRAFANA_RULES_PREFIX, PROMETHEUS_API_PREFIX, sendGatewayFailure } from './prometheus-failure.js';

export interface RequestTimeoutOptions {
  timeoutMs: number;
  logger: Logger;
}

export function useRequestTimeout(options: RequestTimeoutOptions) {
  const { timeoutMs, logger } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    const timer = setTimeout(() => answerTimeout(req, res, timeoutMs, logger), timeoutMs);
    const clear = () => clearTimeout(timer);
    res.once('finish', clear);
    res.once('close', clear);
    next();
  };
}

export function requestTimeoutMessage(timeoutMs: number): string {
  return (
    `The request did not finish within ${timeoutMs} ms (REQUEST_TIMEOUT_MS) and was answered without its result. ` +
    'It was not cancelled: a change it makes may still take effect, so read before you retry one.'
  );
}

function answerTimeout(req: Request, res: Response, timeoutMs: number, logger: Logger): void {
  if (res.headersSent) return;
  const error = new GatewayError('REQUEST_TIMEOUT', requestTimeoutMessage(timeoutMs));
  logger.warn({ requestId: res.locals.requestId, method: req.method, path: req.originalUrl.split('?')[0], apiId: res.locals.apiId, timeoutMs }, 'request timed out');
  if (req.originalUrl.startsWith('/graphql')) {
    res.status(error.httpStatus).json({ errors: [{ message: error.message, extensions: { code: error.code, responseCode: error.kind } }] });
  } else if (req.originalUrl.startsWith(`${PROMETHEUS_API_PREFIX}/`) || req.originalUrl.startsWith(`${GRAFANA_RULES_PREFIX}/`)) {
    sendGatewayFailure(res, error);
  } else {
    const apiId = typeof res.locals.apiId === 'string' ? res.locals.apiId : 'api';
    sendFailure(res, apiId, requestMsgid(req.body), error);
  }
  dropLaterWrites(res);
}

/** The handler still runs and will try to answer; its headers and body go nowhere. */
function dropLaterWrites(res: Response): void {
  const ignore = function (this: Response) {
    return this;
  };
  Object.assign(res, { setHeader: ignore, removeHeader: ignore, appendHeader: ignore, writeHead: ignore, flushHeaders: ignore, write: () => true, end: ignore });
}
