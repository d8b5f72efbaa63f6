// The REST entries' routes in one table, looked up once per request. Express matched them as three
// layers per entry (naming, access, body), walked in turn for every request: a call to an entry
// late in the table went through ~150 layers first, 15 % of a single-event ingest call's time. The
// table matches as express's router did: paths without regard to case, an optional trailing slash,
// a parameter a whole non-empty segment decoded with decodeURIComponent (400 when it cannot be), a
// GET entry answers HEAD, entries in the order added. A path some entry serves asked with another
// method is answered 405 with the methods it takes (Allow), OPTIONS with those methods, as the
// router answered it.
import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../src/errors.js';
import { sendFailure } from '../src/http/envelope.js';

/** One step of a request's handling, as express calls it. */
export type Step = (req: Request, res: Response, next: NextFunction) => void;

interface Route {
  method: string;
  pattern: RegExp;
  names: readonly string[];
  serve: Step;
}

/** The pattern of an entry path such as `/v2/datasets/read/:dataset_id` (static segments and `:name` parameters). */
function patternOf(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`, 'i'), names };
}

/** A parameter as express decodes it: a value that is not valid percent-encoding is the caller's error (400). */
function decodeParameter(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch (error) {
    throw Object.assign(new Error(`Failed to decode param '${value}'`), { status: 400, cause: error });
  }
}

export class RouteTable {
  private readonly routes: Route[] = [];

  /** Serves `method` on each of `paths`, after the routes added before it. */
  add(method: string, paths: readonly string[], serve: Step): void {
    for (const path of paths) this.routes.push({ method, ...patternOf(path), serve });
  }

  /** Express middleware: the entry the request names runs, or 405/OPTIONS for a known path, or the next handler. */
  readonly dispatch: Step = (req, res, next) => {
    const path = req.path;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      try {
        route.names.forEach((name, at) => (params[name] = decodeParameter(found[at + 1]!)));
      } catch (error) {
        return next(error);
      }
      req.params = params;
      return route.serve(req, res, next);
    }
    const allowed = new Set<string>();
    for (const route of this.routes) {
      if (!route.pattern.test(path)) continue;
      allowed.add(route.method);
      if (route.method === 'GET') allowed.add('HEAD');
    }
    if (allowed.size === 0) return next();
    const methods = [...allowed].sort().join(', ');
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', methods);
      res.setHeader('Content-Type', 'text/plain');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      return void res.end(methods);
    }
    res.set('allow', methods);
    sendFailure(res, 'api', undefined, new GatewayError('METHOD_NOT_ALLOWED', `Method not allowed: ${req.method} ${req.originalUrl.split('?')[0]!.slice(0, 300)}; this route takes ${methods}`));
  };
}
