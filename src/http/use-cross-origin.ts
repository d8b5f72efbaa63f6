// What a web page on another site may do with this gateway: nothing, unless CORS_ALLOWED_ORIGINS
// names its origin. A browser sends `Origin` with cross-origin calls (and with every POST); one from
// an origin that is neither this gateway's own nor allowed is refused before any work, so a page
// cannot make the visitor's browser write here with a "simple" request that needs no preflight.
// Allowed origins get their preflights answered and the CORS headers on the answer.
//
// With AUTH_MODE=none every caller acts as SYSTEM, which is safe only because nothing but this
// machine can reach the gateway. A DNS-rebinding page reaches it through a name of its own that
// resolves to 127.0.0.1: so in that mode only loopback Host names are answered.
import type { NextFunction, Request, Response } from 'express';
import { failureEnvelope } from './envelope.js';
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

/** The origin this request was addressed to, as a browser on this gateway's own pages would send it. */
function ownOrigins(req: Request): string[] {
  const host = req.headers.host ?? '';
  return [`http://${host}`, `https://${host}`];
}

function refuse(req: Request, res: Response, error: GatewayError): void {
  if (req.path.startsWith('/graphql')) {
    res.status(error.httpStatus).json({ errors: [{ message: error.message, extensions: { code: error.code, responseCode: error.kind } }] });
    return;
  }
  res.status(error.httpStatus).json(failureEnvelope('api', undefined, error.kind, error.code, error.message));
}

export function useCrossOrigin(options: UseCrossOriginOptions) {
  const anyOrigin = options.allowedOrigins.includes('*');
  const allowed = new Set(options.allowedOrigins.filter((origin) => origin !== '*').map((origin) => origin.toLowerCase()));

  return (req: Request, res: Response, next: NextFunction) => {
    if (options.loopbackHostsOnly && !LOOPBACK_HOSTNAME.test(hostname(req.headers.host ?? ''))) {
      return refuse(
        req,
        res,
        new GatewayError('FORBIDDEN', `This gateway runs without authentication (AUTH_MODE=none) and answers loopback host names only; Host ${JSON.stringify(req.headers.host ?? '')} is not one.`),
      );
    }
    if (options.ownPolicyPrefixes?.some((prefix) => req.path.startsWith(`${prefix}/`))) return next();
    const origin = req.headers.origin;
    // No Origin: not a browser page's cross-origin call (servers, curl, same-origin GETs).
    if (origin === undefined || ownOrigins(req).includes(origin.toLowerCase())) return next();
    if (origin === 'null') return refuse(req, res, new GatewayError('FORBIDDEN', 'Requests from an opaque origin (Origin: null: a sandboxed page or a file) are refused.'));
    const isAllowed = anyOrigin || allowed.has(origin.toLowerCase());
    if (!isAllowed) {
      return refuse(req, res, new GatewayError('FORBIDDEN', `Cross-origin requests from ${origin} are refused; an operator allows an origin with CORS_ALLOWED_ORIGINS.`));
    }
    res.vary('Origin');
    res.set('access-control-allow-origin', anyOrigin && !allowed.has(origin.toLowerCase()) ? '*' : origin);
    if (!anyOrigin || allowed.has(origin.toLowerCase())) res.set('access-control-allow-credentials', 'true');
    res.set('access-control-expose-headers', 'x-request-id, retry-after, etag');
    if (req.method === 'OPTIONS') {
      res.set('access-control-allow-methods', ALLOWED_METHODS);
      res.set('access-control-allow-headers', ALLOWED_HEADERS);
      res.set('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
      res.status(204).end();
      return;
    }
    next();
  };
}
