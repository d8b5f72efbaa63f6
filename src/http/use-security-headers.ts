// Headers that keep browsers from misreading or framing what the gateway sends: every answer is
// what its content type says (no sniffing), no page of it (GraphiQL, the API docs) may be framed by
// another site (clickjacking), and no URL of it leaks to other sites as a referrer.
import type { NextFunction, Request, Response } from 'express';

const HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
});

export function useSecurityHeaders() {
  return (_req: Request, res: Response, next: NextFunction) => {
    res.set(HEADERS);
    next();
  };
}
