// Accepts the caller's x-request-id when it looks like an id, otherwise makes one; echoes it on the
// response and keeps it in res.locals for the context and the logs. The fast path (fast-path.ts)
// takes its id from the same function.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's id when it looks like one, else a new one. */
export function requestIdFor(headers: IncomingHttpHeaders): string {
  const offered = headers['x-request-id'];
  return typeof offered === 'string' && ACCEPTABLE_ID.test(offered) ? offered : randomUUID();
}

export function useRequestId() {
  return (req: Request, res: Response, next: NextFunction) => {
    const requestId = requestIdFor(req.headers);
    res.locals.requestId = requestId;
    res.setHeader('x-request-id', requestId);
    next();
  };
}
