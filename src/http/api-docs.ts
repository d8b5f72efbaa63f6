// The REST layer's OpenAPI document at GET /openapi.json, and an API reference page at GET /docs
// (Swagger UI from the swagger-ui-dist package plus web/docs), all served by the gateway itself:
// no CDN, so the page works offline.
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Request, type Response } from 'express';
import { projectPath } from '../paths.js';

const WEB_DOCS_DIR = projectPath('web', 'docs') + path.sep;
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** The only files of swagger-ui-dist the page uses. */
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);

/** Where the router below answers. */
export const API_DOCS_PATHS = ['/openapi.json', '/docs'];

/** `document` is the OpenAPI document the REST table describes (rest/openapi.ts builds it). */
export function apiDocsRouter(document: Readonly<Record<string, unknown>>): express.Router {
  const router = express.Router();
  const json = JSON.stringify(document);
  router.get('/openapi.json', (_req: Request, res: Response) => {
    res.type('application/json').send(json);
  });
  router.get(['/docs', '/docs/'], (_req: Request, res: Response) => {
    res.sendFile(path.join(WEB_DOCS_DIR, 'index.html'));
  });
  router.get('/docs/docs.js', (_req: Request, res: Response) => {
    res.sendFile(path.join(WEB_DOCS_DIR, 'docs.js'), { maxAge: '1h' });
  });
  router.get('/docs/assets/:file', (req: Request, res: Response) => {
    const file = req.params.file as string;
    if (!ASSETS.has(file)) {
      res.status(404).type('text/plain').send('not found');
      return;
    }
    res.sendFile(path.join(SWAGGER_UI_DIR, file), { maxAge: '1h' });
  });
  return router;
}
