// Headers every answer carries (the fast path, fast-path.ts, sets the same ones).
import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

const HEADERS: readonly (readonly [string, string])[] = Object.freeze([
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['referrer-policy', 'no-referrer'],
] as const);

export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of HEADERS) res.setHeader(name, value);
}

export function useSecurityHeaders() {
  return (_req: Request, res: Response, next: NextFunction) => {
    setSecurityHeaders(res);
    next();
  };
}
