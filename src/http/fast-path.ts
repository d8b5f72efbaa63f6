// The fast path: a node:http request handler in front of the express app that answers, from the
// raw request, what the published cache already keeps (REST GET reads noted in kept-reads.ts, REST
// POST reads such as the lists, keyed by their JSON body as the REST router keys them, and GraphQL
// POSTs whose answer published-results.ts keeps), and hands every other request to express
// untouched. A cached read otherwise pays for express's routing, body parsing and middleware chain,
// which cost more than the answer.
//
// Nothing is decided twice in two ways: the request id (use-request-id.ts), the security headers
// (use-security-headers.ts), the cross-origin policy (use-cross-origin.ts), authentication (the same
// authenticator), access and rate limits (RequestAccess.admit, OperationChecks.admitToKeptAnswer), the log line and
// metrics (use-observability.ts) and the answer's bytes, ETag and 304 (kept-answer.ts) are the same
// functions the express stack calls. Whatever the fast path would refuse (a foreign origin, missing
// credentials, a spent rate limit, a preflight) it does not answer: it hands the request to express,
// which refuses it as it always does. It writes nothing before it knows it serves the request, and
// writes what it serves at the end of the event loop's turn, with the turn's other answers
// (kept-answer.ts, writeKeptAnswerAtTurnEnd).
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Authentication, RequestAccess } from '../auth/access.js';
import type { Authenticator } from '../auth/authenticate.js';
import type { OperationChecks } from '../graphql/pipeline/operation-checks.js';
import { isJsonRequest, type KeptAnswer } from '../graphql/published-results.js';
import { requestMsgid, successEnvelopeHead } from './envelope.js';
import { writeKeptAnswerAtTurnEnd } from './kept-answer.js';
import type { KeptReads } from './kept-reads.js';
import type { CrossOriginDecision } from './use-cross-origin.js';
import { setCrossOriginHeaders } from './use-cross-origin.js';
import type { ObservedRequest, requestObserver } from './use-observability.js';
import { requestIdFor } from './use-request-id.js';
import { setSecurityHeaders } from './use-security-headers.js';
import { authenticatedBefore } from './use-auth.js';
import { handOnParsedBody } from './body-read-ahead.js';
import { asksToRespondAsync } from './respond-async.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface FastPathOptions {
  /** The normal path (the express app), which gets every request the fast path does not serve. */
  normalPath: Listener;
  crossOrigin: (method: string, path: string, headers: IncomingHttpHeaders) => CrossOriginDecision;
  observe: ReturnType<typeof requestObserver>;
  /** Counts an answer the fast path served. */
  served: (transport: 'rest' | 'graphql') => void;
  authenticator: Authenticator;
  accessFor: (authentication: Authentication, clientAddress: string | undefined) => RequestAccess;
  /** While the gateway drains, every request takes the normal path (which asks clients to reconnect). */
  draining: () => boolean;
  restReads: KeptReads;
  graphql: {
    keptAnswerFor: (body: unknown, headers: IncomingHttpHeaders, req?: IncomingMessage) => KeptAnswer | undefined;
    /** The pipeline's checks, which admit a caller to a kept answer as at every door. */
    checks: Pick<OperationChecks, 'admitToKeptAnswer'>;
  };
  /** Largest /graphql body read ahead to look for a kept answer; larger ones go the normal way unread. */
  maxGraphQLBodyBytes: number;
  /** Largest REST POST read body (a list's envelope) read ahead; at most the REST body limit, so nothing the normal path refuses as too large is served. */
  maxRestBodyBytes: number;
  /**
   * Longest the fast path waits for authentication and the rate limit when they are decided
   * elsewhere (a session lookup, the shared rate-limit store); then the request goes the normal way,
   * where REQUEST_TIMEOUT_MS bounds it.
   */
  handOverAfterMs: number;
}

/** JSON that express's body parser reads as UTF-8 (no other charset, which it refuses). */
const isUtf8Json = (contentType: string | undefined) => contentType !== undefined && /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i.test(contentType);

/** Most requests that wait for one first read of their URL; more go the normal way at once. */
const MAX_WAITING_FOR_FIRST_READ = 10_000;

const hasBody = (headers: IncomingHttpHeaders) => headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * Reads a whole body of at most `limit` bytes. `done` gets it with `putBack`, which puts it back in
 * the stream so that whoever reads it next (express's body parser, when the request goes the normal
 * way unparsed) reads the same bytes; or undefined (put back already) when it was longer than
 * `limit` or failed.
 */
function peekBody(req: IncomingMessage, limit: number, done: (body: Buffer | undefined, putBack: () => void) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const putBack = () => {
    // Back in the stream before its end is announced (on the next tick, and only when it is empty).
    if (size > 0) req.unshift(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  };
  const finish = (body: Buffer | undefined) => {
    req.off('readable', onReadable);
    req.off('error', onError);
    if (body === undefined) {
      putBack();
      done(undefined, () => undefined);
    } else done(body, putBack);
  };
  const onError = () => finish(undefined);
  const onReadable = () => {
    let chunk: Buffer | null;
    while ((chunk = req.read() as Buffer | null) !== null) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) return finish(undefined);
    }
    if (req.complete) finish(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  };
  req.on('readable', onReadable);
  req.on('error', onError);
}

/** JSON text parsed as express's JSON parser parses it (`strict`: an object or an array), or undefined. */
function parseStrictJson(bytes: Buffer): object | undefined {
  try {
    const value: unknown = JSON.parse(bytes.toString());
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

export function withFastPath(options: FastPathOptions): Listener {
  const { normalPath } = options;

  /**
   * Serves a kept answer once the caller is authenticated and admitted (`admit` throws or rejects
   * when not); hands the request over otherwise. `write` writes the answer, or answers false when
   * the answer is no longer kept (dropped while the admission was being decided elsewhere).
   */
  const serve = (
    req: IncomingMessage,
    res: ServerResponse,
    cors: CrossOriginDecision,
    names: ObservedRequest,
    admit: (access: RequestAccess) => void | Promise<void>,
    write: (requestId: string) => boolean,
    toNormalPath: () => void = () => normalPath(req, res),
    started: bigint = process.hrtime.bigint(),
  ): void => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let access: RequestAccess | undefined;
    const handOver = () => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      // Admitted here (or still being admitted: a slow shared store, an answer dropped meanwhile):
      // express admits the request again, drawing on the tokens paid here instead of taking more.
      if (access) authenticatedBefore(req, access.handOn());
      toNormalPath();
    };
    const answer = () => {
      if (settled) return;
      const requestId = requestIdFor(req.headers);
      res.setHeader('x-request-id', requestId);
      setSecurityHeaders(res);
      if ('allowOrigin' in cors) setCrossOriginHeaders(res, cors);
      options.observe(req, res, requestId, started, () => ({ ...names, keptAnswer: true, ...(access?.caller ? { callerKind: access.caller.via } : {}) }));
      if (!write(requestId)) {
        // Headers set here are set again, to the same values, by the normal path.
        for (const name of res.getHeaderNames()) res.removeHeader(name);
        return handOver();
      }
      settled = true;
      if (timer) clearTimeout(timer);
      options.served(names.transport === 'graphql' ? 'graphql' : 'rest');
    };
    const withAccess = (authentication: Authentication) => {
      if (settled) return;
      let admitted: void | Promise<void>;
      access = options.accessFor(authentication, req.socket.remoteAddress);
      try {
        admitted = admit(access);
      } catch {
        return handOver();
      }
      if (admitted) admitted.then(answer, handOver);
      else answer();
    };
    const authentication = options.authenticator.authenticate(req.headers);
    if (authentication instanceof Promise) {
      timer = setTimeout(handOver, options.handOverAfterMs);
      authentication.then(withAccess, handOver);
    } else withAccess(authentication);
  };

  /** `arrived`: when the request arrived, when it waited for a first read of its URL (the log's duration counts the wait). */
  const serveRestRead = (req: IncomingMessage, res: ServerResponse, url: string, arrived?: bigint): boolean => {
    if (hasBody(req.headers)) return false;
    const found = options.restReads.find(url);
    if (!found) return false;
    const cors = options.crossOrigin('GET', pathOf(url), req.headers);
    if ('refuse' in cors || ('preflight' in cors && cors.preflight)) return false;
    const { read } = found;
    let answer = found.answer;
    let decidedLater = false;
    serve(
      req,
      res,
      cors,
      { transport: 'rest', operation: read.apiId, route: read.route, datasetId: read.datasetId },
      (access) => {
        const admitted = access.admit([read.apiId]);
        decidedLater = admitted !== undefined;
        return admitted;
      },
      () => {
        // A decision made elsewhere took time: the answer must still be the kept one.
        if (decidedLater) {
          const again = options.restReads.find(url);
          if (!again) return false;
          answer = again.answer;
        }
        writeKeptAnswerAtTurnEnd('GET', req.headers, res, answer, successEnvelopeHead(read.apiId, undefined));
        return true;
      },
      undefined,
      arrived,
    );
    return true;
  };

  // First reads of a URL whose result may be kept, handed to the normal path and not answered yet,
  // with the requests for the same URL that arrived meanwhile. Without this, every request that
  // arrives while a URL's first read runs finds nothing kept and runs the read again: after a start
  // or a change, 50 clients reading the same records ran each one ~15 times on the normal path
  // (bench/cold-reads.ts), at a cold path's cost. They wait instead, and get the kept answer from
  // here (each admitted with its own access, as any kept answer), or the normal path when nothing
  // was kept (an error, a caller not allowed, a change meanwhile) or the first read takes longer
  // than handOverAfterMs.
  const firstReads = new Map<string, (() => void)[]>();

  const waitForFirstRead = (req: IncomingMessage, res: ServerResponse, url: string): boolean => {
    if (hasBody(req.headers) || !options.restReads.mayKeepGet(pathOf(url))) return false;
    const waiting = firstReads.get(url);
    if (waiting) {
      if (waiting.length >= MAX_WAITING_FOR_FIRST_READ) return false;
      const arrived = process.hrtime.bigint();
      waiting.push(() => {
        if (!serveRestRead(req, res, url, arrived)) normalPath(req, res);
      });
      return true;
    }
    const waiters: (() => void)[] = [];
    firstReads.set(url, waiters);
    let timer: NodeJS.Timeout | undefined;
    const settle = () => {
      if (timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      if (firstReads.get(url) === waiters) firstReads.delete(url);
      for (const next of waiters.splice(0)) next();
    };
    timer = setTimeout(settle, options.handOverAfterMs);
    // 'close' also when the answer was not written to the end (the caller went away).
    res.once('finish', settle);
    res.once('close', settle);
    normalPath(req, res);
    return true;
  };

  /**
   * A REST POST read (a list): its body, JSON of a few KiB or none at all, is read ahead and keyed
   * as the REST router keys it (kept-reads.ts). A body the route would refuse, any other media type,
   * charset or encoding, or a body too large to read ahead, goes the normal way untouched, which
   * answers its failure envelope.
   */
  const serveRestPost = (req: IncomingMessage, res: ServerResponse, url: string): boolean => {
    const read = options.restReads.postAt(url);
    if (!read) return false;
    const { headers } = req;
    if (headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return false;
    const length = headers['content-length'];
    const contentType = headers['content-type'];
    // No body (the route then reads `{}`), or JSON the fast path may read ahead.
    const bodyless = (length === undefined || length === '0') && (contentType === undefined || isUtf8Json(contentType));
    if (!bodyless && !(isUtf8Json(contentType) && Number(length) > 0 && Number(length) <= options.maxRestBodyBytes)) return false;
    const cors = options.crossOrigin('POST', url, headers);
    if ('refuse' in cors || ('preflight' in cors && cors.preflight)) return false;
    /** `toNormalPath` hands the request on when it is not served here (with its body, when read ahead). */
    const withBody = (body: unknown, toNormalPath: () => void) => {
      const key = read.keyOfBody(body);
      let answer = key === undefined ? undefined : read.part.get(key);
      if (!answer) return toNormalPath();
      const head = successEnvelopeHead(read.apiId, requestMsgid(body));
      let decidedLater = false;
      serve(
        req,
        res,
        cors,
        { transport: 'rest', operation: read.apiId, route: read.route, datasetId: undefined },
        (access) => {
          const admitted = access.admit([read.apiId]);
          decidedLater = admitted !== undefined;
          return admitted;
        },
        () => {
          // A decision made elsewhere took time: the answer must still be the kept one.
          if (decidedLater) answer = read.part.get(key!);
          if (!answer) return false;
          writeKeptAnswerAtTurnEnd('POST', headers, res, answer, head);
          return true;
        },
        toNormalPath,
      );
    };
    if (bodyless) {
      withBody({}, () => normalPath(req, res));
      return true;
    }
    peekBody(req, options.maxRestBodyBytes, (bytes, putBack) => {
      let body: unknown;
      try {
        body = bytes && JSON.parse(bytes.toString());
      } catch {
        body = undefined;
      }
      if (body === undefined) {
        putBack();
        return normalPath(req, res);
      }
      // Parsed once: the REST router (a JSON parser that is not strict) takes this body as it is.
      withBody(body, () => {
        handOnParsedBody(req, body);
        normalPath(req, res);
      });
    });
    return true;
  };

  const serveGraphQL = (req: IncomingMessage, res: ServerResponse): boolean => {
    const { headers } = req;
    const length = Number(headers['content-length']);
    if (!isJsonRequest(headers) || headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return false;
    if (!(length > 0 && length <= options.maxGraphQLBodyBytes)) return false;
    const cors = options.crossOrigin('POST', '/graphql', headers);
    if ('refuse' in cors || ('preflight' in cors && cors.preflight)) return false;
    peekBody(req, options.maxGraphQLBodyBytes, (bytes, putBack) => {
      const body = bytes && parseStrictJson(bytes);
      // Parsed once: the normal path takes this body as it is (body-read-ahead.ts) when its JSON
      // parser would read it alike (UTF-8 JSON, an object or an array); else it reads the bytes again.
      const handOn = () => {
        if (body !== undefined && isUtf8Json(headers['content-type'])) handOnParsedBody(req, body);
        else putBack();
        normalPath(req, res);
      };
      const kept = body && options.graphql.keptAnswerFor(body, headers, req);
      if (!kept) return handOn();
      const found = kept;
      serve(
        req,
        res,
        cors,
        { transport: 'graphql', operation: found.operationLabel ?? 'unresolved' },
        (access) => {
          // Callers without credentials pay per document before parsing (limit-anonymous.ts): the normal way.
          if (!access.caller) throw new Error('anonymous');
          return options.graphql.checks.admitToKeptAnswer(access, found);
        },
        () => {
          writeKeptAnswerAtTurnEnd('POST', headers, res, found.answer, '');
          return true;
        },
        handOn,
      );
    });
    return true;
  };

  return (req, res) => {
    // A request asking for its work as a job is never a read to answer from what is kept.
    if (options.draining() || asksToRespondAsync(req.headers)) return normalPath(req, res);
    const url = req.url ?? '/';
    if (req.method === 'GET' ? serveRestRead(req, res, url) || waitForFirstRead(req, res, url) : req.method === 'POST' && (url === '/graphql' ? serveGraphQL(req, res) : serveRestPost(req, res, url)))
      return;
    normalPath(req, res);
  };
}
