// An answer the published cache keeps (a REST read's envelope, a GraphQL query's body), prepared
// once, when it is kept: the body's bytes and its ETag, which do not change between requests. Only
// bytes and a tag are built here; src/http/kept-answer.ts writes them, for the express routes and
// the fast path alike.
import { createHash } from 'node:crypto';

/**
 * What ends every REST answer's JSON: a newline, so that `curl` output (and a log of answers) ends
 * its line. JSON parsers ignore it.
 */
export const ANSWER_END = '\n';

/** An answer as it is kept: its bytes after the per-request part, and its validator. */
export interface PreparedAnswer {
  /** REST: the envelope's `result` and its closing brace; GraphQL: the whole body. */
  readonly bytes: Buffer;
  readonly etag: string;
}

/** The weak ETag of a serialised answer: equal answers, equal tags, whenever they were served. */
export function answerEtag(text: string): string {
  return `W/"${createHash('sha1').update(text).digest('base64url')}"`;
}

/** A REST success envelope's `result` (JSON text), prepared for splicing: the envelope's closing brace and the answer's final newline (ANSWER_END) follow it. */
export function prepareResult(resultJson: string): PreparedAnswer {
  return { bytes: Buffer.from(`${resultJson}}${ANSWER_END}`), etag: answerEtag(resultJson) };
}

/**
 * A whole body (a GraphQL answer), prepared, with the tag express gives the bodies Apollo sends
 * (length and hash), so that an executed answer and the kept one carry the same ETag.
 */
export function prepareBody(body: string): PreparedAnswer {
  const bytes = Buffer.from(body);
  return { bytes, etag: `W/"${bytes.length.toString(16)}-${createHash('sha1').update(bytes).digest('base64').slice(0, 27)}"` };
}
