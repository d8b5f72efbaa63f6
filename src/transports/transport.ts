// A door of the gateway (docs/architecture.md "One operation pipeline"): the routes it serves, the API paths that
// get the pipeline's request timeout and authentication in front of them, how it shapes errors of
// its own routes, and how it stops. src/server.ts lists the doors and mounts them all the same way.
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';

export interface Transport {
  readonly name: string;
  /** Served before the request timeout and authentication: public documents, and streams that last as long as their subscription. */
  readonly publicRoutes?: readonly RequestHandler[];
  /** Path prefixes of its API, which get the request timeout and then authentication before any door's routes. */
  readonly apiPaths?: readonly string[];
  readonly routes?: readonly RequestHandler[];
  /**
   * Every path its public routes and routes answer under (a path or a prefix of whole segments):
   * a request elsewhere passes them by without entering them (express would walk each of their
   * layers). Unset: they see every request.
   */
  readonly paths?: readonly string[];
  /** The answer for a request no door's routes answered (one door has it, mounted after every door's routes). */
  readonly notFound?: RequestHandler;
  /** Shapes an error of its own routes as its callers expect it (each passes on what is not its own). */
  readonly errorHandlers?: readonly ErrorRequestHandler[];
  stop?(): Promise<void>;
}

export interface ApiPathPolicies {
  /** The request timeout: it starts before authentication, since a session or API-key lookup can wait on the database too. */
  timeout: RequestHandler;
  authenticate: RequestHandler;
}

/**
 * A handler that sees only the requests under `paths` (matched as express matches a path: in any
 * case, whole segments); any other request goes on at once.
 */
function underPaths(paths: readonly string[], handler: RequestHandler): RequestHandler {
  const prefixes = paths.map((path) => path.toLowerCase());
  return (req, res, next) => {
    const path = req.path.toLowerCase();
    for (const prefix of prefixes) if (path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === '/')) return handler(req, res, next);
    next();
  };
}

/**
 * Mounts every door in the order given: all public routes, then the timeout and authentication on
 * every API path, then each door's routes, then the answer for a route nobody serves, then each
 * door's error handlers.
 */
export function mountTransports(app: Express, transports: readonly Transport[], policies: ApiPathPolicies): void {
  const mount = (transport: Transport, route: RequestHandler) => app.use(transport.paths ? underPaths(transport.paths, route) : route);
  for (const transport of transports) for (const route of transport.publicRoutes ?? []) mount(transport, route);
  const apiPaths = transports.flatMap((transport) => transport.apiPaths ?? []);
  app.use(apiPaths, policies.timeout);
  app.use(apiPaths, policies.authenticate);
  for (const transport of transports) for (const route of transport.routes ?? []) mount(transport, route);
  for (const transport of transports) if (transport.notFound) app.use(transport.notFound);
  for (const transport of transports) for (const handler of transport.errorHandlers ?? []) app.use(handler);
}

/** Stops the doors one after another, in the order listed (the live door, listed before the HTTP one, closes its streams before the server drains). */
export async function stopTransports(transports: readonly Transport[]): Promise<void> {
  for (const transport of transports) await transport.stop?.();
}
