// GraphiQL served from the gateway's own assets (built by scripts/build-graphiql.mjs into
// dist/graphiql); no CDN, so it works offline. The page asks /graphiql/setup.json for what depends
// on this gateway: the headers its auth mode needs, prefilled, and the operations of the allow list
// (graphql/operations/), offered as ready examples.
import path from 'node:path';
import { existsSync } from 'node:fs';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Config } from '../config.js';
import type { ManifestOperation } from '../graphql/persisted-operations.js';
import { projectPath } from '../paths.js';

export const GRAPHIQL_DIR = projectPath('dist', 'graphiql') + path.sep;

export interface GraphiqlOptions {
  authMode: Config['auth']['mode'];
  examples: readonly ManifestOperation[];
}

/**
 * The Headers tab a caller starts with: jwt needs a bearer token (its placeholder, once sent, is
 * refused with a message saying what to send); session rides on the browser's own cookie and none
 * needs nothing. An API key (an x-api-key header instead) works in both modes that check callers.
 */
export function graphiqlHeaders(authMode: GraphiqlOptions['authMode']): Record<string, string> {
  return authMode === 'jwt' ? { authorization: 'Bearer <paste a JWT here>' } : {};
}

/** Mount at the app root: GET /graphql from a browser gets the page; /graphiql/* its assets. */
export function graphiqlRouter(options: GraphiqlOptions): express.Router {
  const router = express.Router();
  const setup = {
    headers: JSON.stringify(graphiqlHeaders(options.authMode), null, 2),
    examples: options.examples.map(({ name, type, body }) => ({ name, type, body })),
  };
  router.get('/graphiql/setup.json', (_req: Request, res: Response) => {
    res.json(setup);
  });
  router.use('/graphiql', express.static(GRAPHIQL_DIR, { index: false, maxAge: '1h' }));
  router.get('/graphql', (req: Request, res: Response, next: NextFunction) => {
    // A browser navigation (prefers HTML) gets the page, even with ?query= (GraphiQL prefills from
    // it); GraphQL GET requests from clients (JSON or */*) go on to Apollo.
    if (req.accepts(['json', 'html']) !== 'html') return next();
    const page = `${GRAPHIQL_DIR}index.html`;
    if (!existsSync(page)) {
      res.status(503).type('text/plain').send('GraphiQL assets are not built. Run `npm run build:graphiql` (npm start does it for you).');
      return;
    }
    res.sendFile(page);
  });
  return router;
}
