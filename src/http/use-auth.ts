// Authenticates every request that reaches the API (after health checks, GraphiQL's assets and
// signed object-store links, which need none) and leaves the outcome in res.locals.auth. It never
// answers by itself: the access check (REST router, GraphQL root fields) turns a refusal into the
// transport's failure, with the API id of what was called.
import type { NextFunction, Request, Response } from 'express';
import type { Authentication } from '../auth/access.js';
import type { Authenticator } from '../auth/authenticate.js';

export interface UseAuthOptions {
  authenticator: Authenticator;
}

export function useAuth(options: UseAuthOptions) {
  const { authenticator } = options;
  return (req: Request, res: Response, next: NextFunction) => {
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
