// The one writer of an answer the published cache keeps (a REST read's envelope, a GraphQL query's
// body), used by the express routes and by the fast path (fast-path.ts) alike, so the two cannot
// send different bytes or headers. What does not change between requests is prepared once, when the
// answer is kept: the body's bytes and its ETag (src/platform/cache/prepared-answer.ts). Per request
// only the envelope's `ts`, `resmsgid` and `msgid` are spliced in front of the prepared bytes.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { PreparedAnswer } from '../platform/cache/prepared-answer.js';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const NO_CACHE = /(?:^|,)\s*no-cache\s*(?:,|$)/i;

/** Whether the caller already holds `etag` (If-None-Match, weak comparison), as HTTP caches ask it. */
function holdsEtag(headers: IncomingHttpHeaders, etag: string): boolean {
  const offered = headers['if-none-match'];
  if (!offered) return false;
  const cacheControl = headers['cache-control'];
  if (cacheControl && NO_CACHE.test(cacheControl)) return false;
  if (offered.trim() === '*') return true;
  const bare = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const each of offered.split(',')) {
    const tag = each.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === bare) return true;
  }
  return false;
}

/**
 * Writes a kept answer with status 200, or 304 with no body when a GET caller already holds it.
 * `head`: the bytes in front of the prepared ones (a REST envelope's head), or '' for none.
 */
export function writeKeptAnswer(method: string | undefined, headers: IncomingHttpHeaders, res: ServerResponse, answer: PreparedAnswer, head: string): void {
  res.setHeader('etag', answer.etag);
  if ((method === 'GET' || method === 'HEAD') && holdsEtag(headers, answer.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('content-type', JSON_CONTENT_TYPE);
  res.setHeader('content-length', Buffer.byteLength(head) + answer.bytes.length);
  if (method === 'HEAD') {
    res.end();
    return;
  }
  // One write of headers, head and bytes: corked here, res.write() schedules no uncorking of its
  // own (a tick, and with the request scope's async hooks a hook call, per answer); end() uncorks.
  if (head !== '') {
    res.socket?.cork();
    res.write(head);
  }
  res.end(answer.bytes);
}

// Kept answers the fast path has decided on in this turn of the event loop, written together at
// its end (setImmediate runs once the turn has read every socket that was ready). Written one by
// one as each request is read, every answer wakes its client (and, in a virtual machine, costs an
// interrupt to do so) and the next request arrives alone; written at the end of the turn, the
// answers to all the requests read in it leave in one burst, the client reads them together, and
// the next turn reads its next requests together. At 50 connections that is about a third less CPU
// per answer, for the gateway and its clients alike (bench/gateway.ts; docs/operating.md "Fast path"). A lone
// request waits only for the rest of its own turn.
let dueThisTurn: (() => void)[] = [];

function writeDueAnswers(): void {
  const due = dueThisTurn;
  dueThisTurn = [];
  for (const write of due) write();
}

/** writeKeptAnswer at the end of this turn of the event loop, with the other answers decided in it. */
export function writeKeptAnswerAtTurnEnd(method: string | undefined, headers: IncomingHttpHeaders, res: ServerResponse, answer: PreparedAnswer, head: string): void {
  if (dueThisTurn.length === 0) setImmediate(writeDueAnswers);
  dueThisTurn.push(() => {
    try {
      writeKeptAnswer(method, headers, res, answer, head);
    } catch (error) {
      // Not expected (the bytes and headers were prepared when the answer was kept), but one
      // failing answer must not keep the others of its turn from being written: its connection
      // is closed, as for any answer that fails half-written.
      res.destroy(error as Error);
    }
  });
}
