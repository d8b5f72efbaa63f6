// Callers without credentials pay for a GraphQL document before it is parsed or validated: with
// AUTH_MODE jwt or session an anonymous client may run only the public fields, so a flood of
// documents from one address meets its rate limit before any expensive work (parsing, validation,
// cost), not after. Callers that presented credentials are limited per identity as they run fields.
import type { NextFunction, Request, Response } from 'express';
import type { Authentication } from '../auth/access.js';
import type { RateLimitDecider } from '../auth/access.js';
import type { Take } from '../auth/rate-limit.js';

export interface LimitAnonymousOptions {
  limiter: RateLimitDecider;
}

export function limitAnonymousGraphQL(options: LimitAnonymousOptions) {
  const { limiter } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    const auth = res.locals.auth as Authentication | undefined;
    if (auth?.caller) return next();
    const decide = (taken: Take) => {
      if (taken.allowed) return next();
      refuse(res, taken.retryAfterSeconds);
    };
    const taken = limiter.take('general', `address:${req.ip ?? 'unknown'}`);
    if (taken instanceof Promise) taken.then(decide, next);
    else decide(taken);
  };
}

function refuse(res: Response, retryAfterSeconds: number): void {
  res
    .status(429)
    .set('retry-after', String(retryAfterSeconds))
    .json({
      errors: [{ message: `Too many calls from this address without credentials; retry after ${retryAfterSeconds} s.`, extensions: { code: 'RATE_LIMITED', responseCode: 'TOO_MANY_REQUESTS' } }],
    });
}
