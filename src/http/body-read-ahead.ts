// A request body read ahead and parsed once: the fast path (fast-path.ts) reads a small JSON body to
// look for a kept answer; when it hands the request on, it hands the parsed body with it, and the
// normal path's JSON parser leaves such a request alone instead of reading and parsing it again.
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

const readAhead = new WeakSet<IncomingMessage>();

/** `req.body` is `body`, as express's JSON parser would have made it; its bytes are consumed. */
export function handOnParsedBody(req: IncomingMessage, body: unknown): void {
  (req as IncomingMessage & { body?: unknown }).body = body;
  readAhead.add(req);
}

/** Runs `parser` unless the request's body was parsed ahead. */
export function unlessParsedAhead(parser: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => (readAhead.has(req) ? next() : parser(req, res, next));
}
