// Authenticates every request that reaches the API (after health checks, GraphiQL's assets and
// signed object-store links, which need none) and leaves the outcome in res.locals.auth. It never
// answers by itself: the access check (REST router, GraphQL root fields) turns a refusal into the
// transport's failure, with the API id of what was called.
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Authentication } from '../auth/access.js';
import type { Authenticator } from '../auth/authenticate.js';

export interface UseAuthOptions {
  authenticator: Authenticator;
}

// Requests the fast path (fast-path.ts) authenticated and then handed over: what it found, with the
// rate-limit tokens it took (RequestAccess.handOn), so the request is neither looked up nor charged twice.
const handedOver = new WeakMap<IncomingMessage, Authentication>();

/** Hands a request over with the authentication (and tokens paid) another path found for it. */
export function authenticatedBefore(req: IncomingMessage, authentication: Authentication): void {
  handedOver.set(req, authentication);
}

export function useAuth(options: UseAuthOptions) {
  const { authenticator } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    const before = handedOver.get(req);
    if (before) {
      res.locals.auth = before;
      return next();
    }
    const found = authenticator.authenticate(req.headers);
    if (!(found instanceof Promise)) {
      res.locals.auth = found;
      return next();
    }
    found.then((auth: Authentication) => {
      res.locals.auth = auth;
      next();
    }, next);
  };
}
