// Serves the embedded object store's pre-signed links: PUT uploads, GET (and HEAD) downloads. The
// link is checked before anything is read or written; a tampered, expired or wrong-method link, or
// any other method, gets 403. Bodies are streamed to disk, never buffered, and capped.
import express, { type Request, type Response } from 'express';
import type { Logger } from '../logger.js';
import { EMBEDDED_LINK_PREFIX, LinkRefused, ObjectTooLarge, type EmbeddedObjectStore } from '../platform/object-store/embedded.js';

function refuse(res: Response, status: number, code: string, message: string): void {
  if (!res.headersSent) res.status(status).json({ error: { code, message } });
}

/**
 * Headers a browser may send with a link: the console's direct upload sends x-ms-blob-type, and its
 * HTTP client adds Cache-Control and Pragma to every request.
 */
const LINK_HEADERS = 'content-type, x-ms-blob-type, cache-control, pragma';

export function embeddedObjectStoreRouter(store: EmbeddedObjectStore, logger: Logger, options: { corsOrigins?: readonly string[] } = {}): express.Router {
  const router = express.Router();
  const corsOrigins = new Set((options.corsOrigins ?? []).map((origin) => origin.toLowerCase()));

  // A link is a bearer credential: a browser page may use one only from an origin the operator
  // named (OBJECT_STORE_CORS_ORIGINS); callers without Origin (servers, curl) are unaffected.
  router.use(EMBEDDED_LINK_PREFIX, (req: Request, res: Response, next: express.NextFunction) => {
    const origin = req.get('origin');
    if (origin === undefined) return next();
    if (!corsOrigins.has(origin.toLowerCase())) return refuse(res, 403, 'FORBIDDEN', `links may not be used from ${origin}; an operator allows an origin with OBJECT_STORE_CORS_ORIGINS`);
    res.vary('Origin');
    res.set('access-control-allow-origin', origin);
    if (req.method === 'OPTIONS') {
      res.set('access-control-allow-methods', 'GET, HEAD, PUT');
      res.set('access-control-allow-headers', LINK_HEADERS);
      res.set('access-control-max-age', '600');
      res.status(204).end();
      return;
    }
    next();
  });

  router.all(`${EMBEDDED_LINK_PREFIX}/*key`, async (req: Request, res: Response) => {
    // Express decodes each path segment; the key is what was signed.
    const key = ([] as string[]).concat((req.params as { key?: string | string[] }).key ?? []).join('/');
    try {
      await store.verify(key, req.method, req.query);
    } catch (error) {
      if (error instanceof LinkRefused) return refuse(res, 403, 'FORBIDDEN', error.message);
      throw error;
    }

    try {
      if (req.method === 'PUT') {
        const declared = Number(req.get('content-length'));
        if (Number.isFinite(declared) && declared > store.maxObjectBytes) {
          return refuse(res, 413, 'PAYLOAD_TOO_LARGE', `the object is larger than the ${store.maxObjectBytes}-byte limit (OBJECT_MAX_SIZE)`);
        }
        await store.putStream(key, req);
        res.status(200).end();
        return;
      }
      const found = await store.openRead(key);
      if (!found) return refuse(res, 404, 'NOT_FOUND', 'no object is stored under this link');
      res.status(200).set({ 'content-type': 'application/octet-stream', 'content-length': String(found.size) });
      if (req.method === 'HEAD') {
        found.stream.destroy();
        res.end();
        return;
      }
      found.stream.on('error', (error) => {
        logger.error({ err: error, key }, 'reading an embedded object failed');
        res.destroy(error);
      });
      found.stream.pipe(res);
    } catch (error) {
      if (error instanceof ObjectTooLarge) {
        // Stop reading what is left of the body; the connection closes after the answer.
        res.set('connection', 'close');
        return refuse(res, 413, 'PAYLOAD_TOO_LARGE', error.message);
      }
      logger.error({ err: error, key, requestId: res.locals.requestId }, 'embedded object store request failed');
      if (req.destroyed || res.headersSent) return;
      refuse(res, 500, 'INTERNAL_SERVER_ERROR', 'the object could not be stored or read');
    }
  });

  return router;
}
