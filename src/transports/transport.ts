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
 * Mounts every door in the order given: all public routes, then the timeout and authentication on
 * every API path, then each door's routes, then each door's error handlers. The last door's routes
 * end with the answer for a route nobody serves.
 */
export function mountTransports(app: Express, transports: readonly Transport[], policies: ApiPathPolicies): void {
  for (const transport of transports) for (const route of transport.publicRoutes ?? []) app.use(route);
  const apiPaths = transports.flatMap((transport) => transport.apiPaths ?? []);
  app.use(apiPaths, policies.timeout);
  app.use(apiPaths, policies.authenticate);
  for (const transport of transports) for (const route of transport.routes ?? []) app.use(route);
  for (const transport of transports) for (const handler of transport.errorHandlers ?? []) app.use(handler);
}

/** Stops the doors one after another, in the order listed (the live door, listed before the HTTP one, closes its streams before the server drains). */
export async function stopTransports(transports: readonly Transport[]): Promise<void> {
  for (const transport of transports) await transport.stop?.();
}
