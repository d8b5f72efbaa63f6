// Accepts the caller's x-request-id when it looks like an id, otherwise makes one; echoes it on the
// response and keeps it in res.locals for the context and the logs.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function useRequestId() {
  return (req: Request, res: Response, next: NextFunction) => {
    const offered = req.get('x-request-id');
    const requestId = offered && ACCEPTABLE_ID.test(offered) ? offered : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('x-request-id', requestId);
    next();
  };
}
