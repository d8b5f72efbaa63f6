// What a web page on another site may do with this gateway: nothing, unless CORS_ALLOWED_ORIGINS
// names its origin. A browser sends `Origin` with cross-origin calls (and with every POST); one from
// an origin that is neither this gateway's own nor allowed is refused before any work, so a page
// cannot make the visitor's browser write here with a "simple" request that needs no preflight.
// Allowed origins get their preflights answered and the CORS headers on the answer.
//
// With AUTH_MODE=none every caller acts as SYSTEM, which is safe only because nothing but this
// machine can reach the gateway. A DNS-rebinding page reaches it through a name of its own that
// resolves to 127.0.0.1: so in that mode only loopback Host names are answered.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { failureEnvelope, failureEnvelopeText } from './envelope.js';
import { GatewayError } from '../errors.js';

export interface UseCrossOriginOptions {
  /** Origins (scheme://host[:port]) a browser page may call from; `*` allows any (without credentials). */
  allowedOrigins: readonly string[];
  /** AUTH_MODE=none: answer only requests whose Host names this machine (127.0.0.1, localhost, [::1]). */
  loopbackHostsOnly: boolean;
  /** Path prefixes with a cross-origin policy of their own (the embedded object store's links). */
  ownPolicyPrefixes?: readonly string[];
}

const ALLOWED_HEADERS = 'authorization, content-type, x-api-key, x-request-id, apollo-require-preflight, x-apollo-operation-name';
const ALLOWED_METHODS = 'GET, POST, PATCH, PUT, DELETE, OPTIONS';
const PREFLIGHT_MAX_AGE_SECONDS = '600';
const LOOPBACK_HOSTNAME = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

function hostname(host: string): string {
  const bracketed = /^(\[[^\]]+\])(:\d+)?$/.exec(host);
  if (bracketed) return bracketed[1]!;
  return host.replace(/:\d+$/, '');
}

/** The origins this request was addressed to, as a browser on this gateway's own pages would send them. */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  const lower = origin.toLowerCase();
  return lower === `http://${host ?? ''}` || lower === `https://${host ?? ''}`;
}

/** What the policy says of one request: refuse it, let it through as it is, or allow it with the CORS headers (and answer it at once when it is a preflight). */
export type CrossOriginDecision = { refuse: GatewayError } | { pass: true } | { allowOrigin: string; credentials: boolean; preflight: boolean };

const PASS: CrossOriginDecision = Object.freeze({ pass: true as const });

/** The decision alone, for the middleware below and the fast path (fast-path.ts), which must decide alike. */
export function crossOriginPolicy(options: UseCrossOriginOptions): (method: string, path: string, headers: IncomingHttpHeaders) => CrossOriginDecision {
  const anyOrigin = options.allowedOrigins.includes('*');
  const allowed = new Set(options.allowedOrigins.filter((origin) => origin !== '*').map((origin) => origin.toLowerCase()));
  return (method, path, headers) => {
    if (options.loopbackHostsOnly && !LOOPBACK_HOSTNAME.test(hostname(headers.host ?? ''))) {
      return {
        refuse: new GatewayError('FORBIDDEN', `This gateway runs without authentication (AUTH_MODE=none) and answers loopback host names only; Host ${JSON.stringify(headers.host ?? '')} is not one.`),
      };
    }
    if (options.ownPolicyPrefixes?.some((prefix) => path.startsWith(`${prefix}/`))) return PASS;
    const origin = headers.origin;
    // No Origin: not a browser page's cross-origin call (servers, curl, same-origin GETs).
    if (origin === undefined || isOwnOrigin(origin, headers.host)) return PASS;
    if (origin === 'null') return { refuse: new GatewayError('FORBIDDEN', 'Requests from an opaque origin (Origin: null: a sandboxed page or a file) are refused.') };
    const named = allowed.has(origin.toLowerCase());
    if (!anyOrigin && !named) {
      return { refuse: new GatewayError('FORBIDDEN', `Cross-origin requests from ${origin} are refused; an operator allows an origin with CORS_ALLOWED_ORIGINS.`) };
    }
    return { allowOrigin: anyOrigin && !named ? '*' : origin, credentials: !anyOrigin || named, preflight: method === 'OPTIONS' };
  };
}

/** The CORS headers of an allowed cross-origin answer. */
export function setCrossOriginHeaders(res: ServerResponse, decision: { allowOrigin: string; credentials: boolean }): void {
  const vary = res.getHeader('vary');
  if (vary === undefined) res.setHeader('vary', 'Origin');
  else if (!/(^|,)\s*origin\s*(,|$)/i.test(String(vary))) res.setHeader('vary', `${String(vary)}, Origin`);
  res.setHeader('access-control-allow-origin', decision.allowOrigin);
  if (decision.credentials) res.setHeader('access-control-allow-credentials', 'true');
  res.setHeader('access-control-expose-headers', 'x-request-id, retry-after, etag');
}

function refuse(req: Request, res: Response, error: GatewayError): void {
  if (req.path.startsWith('/graphql')) {
    res.status(error.httpStatus).json({ errors: [{ message: error.message, extensions: { code: error.code, responseCode: error.kind } }] });
    return;
  }
  res
    .status(error.httpStatus)
    .type('json')
    .send(failureEnvelopeText(failureEnvelope('api', undefined, error.kind, error.code, error.message)));
}

export function useCrossOrigin(options: UseCrossOriginOptions) {
  const decide = crossOriginPolicy(options);
  return (req: Request, res: Response, next: NextFunction) => {
    const decision = decide(req.method, req.path, req.headers);
    if ('refuse' in decision) return refuse(req, res, decision.refuse);
    if ('pass' in decision) return next();
    setCrossOriginHeaders(res, decision);
    if (decision.preflight) {
      res.set('access-control-allow-methods', ALLOWED_METHODS);
      res.set('access-control-allow-headers', ALLOWED_HEADERS);
      res.set('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
      res.status(204).end();
      return;
    }
    next();
  };
}
