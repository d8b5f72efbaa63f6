// GraphiQL served from the gateway's own assets (built by scripts/build-graphiql.mjs into
// dist/graphiql); no CDN, so it works offline.
import path from 'node:path';
import { existsSync } from 'node:fs';
import express, { type NextFunction, type Request, type Response } from 'express';
import { projectPath } from '../paths.js';

export const GRAPHIQL_DIR = projectPath('dist', 'graphiql') + path.sep;

/** Mount at the app root: GET /graphql from a browser gets the page; /graphiql/* its assets. */
export function graphiqlRouter(): express.Router {
  const router = express.Router();
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
