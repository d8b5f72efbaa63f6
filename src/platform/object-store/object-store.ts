// Where uploaded files and connector distributions live: S3 (or any S3-compatible store) at scale,
// by default a folder served by the gateway itself. Both hand out pre-signed links that expire, so
// file bytes never pass through GraphQL or the REST envelope.

/** `read` links download (GET), `write` links upload (PUT). */
export type LinkAccess = 'read' | 'write';

export interface ObjectStore {
  readonly name: string;
  /**
   * A link its holder can GET (read) or PUT (write) with no other credential, until it expires:
   * `expiresInSeconds` after `signedAt` (epoch ms, now by default; its second, as links carry seconds).
   * A caller that tells when the link expires passes the instant it counted from.
   */
  signedUrl(key: string, access: LinkAccess, expiresInSeconds: number, signedAt?: number): Promise<string>;
  /** Stores a local file under `key`, replacing any object there. */
  putFile(key: string, filePath: string, contentType: string): Promise<void>;
  /** Removes an object; no error when there is none. */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Proves the store answers and accepts the gateway's credentials (readiness); throws an
   * ObjectStoreFailure saying why not. Absent where there is nothing outside to check (a folder).
   */
  check?(): Promise<void>;
}

export const OBJECT_KEY_MAX_LENGTH = 1024;
const SEGMENT_MAX_LENGTH = 255;
// C0 and C1 control characters, DEL included.
const CONTROL_CHARACTERS = /\p{Cc}/u;

/**
 * Why `key` cannot name an object, or undefined when it can. Keys are '/'-separated segments; a
 * segment is never empty, `.` or `..` and holds no backslash or control character, so no key can
 * point outside the store, whatever the backend does with it.
 */
export function objectKeyProblem(key: string): string | undefined {
  if (key.length === 0) return 'the key is empty';
  if (Buffer.byteLength(key) > OBJECT_KEY_MAX_LENGTH) return `the key is longer than ${OBJECT_KEY_MAX_LENGTH} bytes`;
  if (CONTROL_CHARACTERS.test(key)) return 'the key contains control characters';
  if (key.includes('\\')) return 'the key contains a backslash';
  for (const segment of key.split('/')) {
    if (segment === '') return 'the key has an empty segment (a leading, trailing or double slash)';
    if (segment === '.' || segment === '..') return `the key has a '${segment}' segment`;
    if (Buffer.byteLength(segment) > SEGMENT_MAX_LENGTH) return `a segment of the key is longer than ${SEGMENT_MAX_LENGTH} bytes`;
  }
  return undefined;
}

/** Throws when `key` could not be stored safely; the stores call it before touching anything. */
export function assertObjectKey(key: string): void {
  const problem = objectKeyProblem(key);
  if (problem) throw new Error(`invalid object key ${JSON.stringify(key.slice(0, 80))}: ${problem}`);
}

/** The key as URL path segments (each percent-encoded, slashes kept). */
export function encodeObjectKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

/** How an object store failed: it answered no, it could not be reached, or it was never asked (no credentials). */
export type StoreFailureKind = 'refused' | 'unreachable' | 'no-credentials';

const FAILURE_TEXT: Record<StoreFailureKind, string> = {
  refused: 'the object store refused',
  unreachable: 'the object store could not be reached',
  'no-credentials': 'no credentials for the object store were found (it was not contacted)',
};

/**
 * A failure of the object store, named for a caller (`reason`: the store's own error code or the
 * network error, never an address) and for the log (`message`: the store too, and the detail).
 */
export class ObjectStoreFailure extends Error {
  override readonly name = 'ObjectStoreFailure';

  constructor(
    readonly kind: StoreFailureKind,
    /** The store, as its `name` says it (bucket and endpoint). */
    readonly store: string,
    /** Short and safe to show a caller, e.g. "NoSuchBucket, HTTP 404" or "ECONNREFUSED". */
    readonly reason: string,
    detail: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${store}: ${FAILURE_TEXT[kind]} (${reason})${detail && detail !== reason ? `: ${detail}` : ''}`, options);
  }

  /** What a caller is told: the kind of failure and its reason, without the store's address. */
  get summary(): string {
    return `${FAILURE_TEXT[this.kind]} (${this.reason})`;
  }
}

/**
 * For an answer to a request the object store failed: what the caller reads (the kind of failure
 * and the store's own reason), and the store and the whole error for the request's log line.
 */
export function storeFailure(error: unknown): { summary: string; downstream: string; cause: unknown } {
  if (error instanceof ObjectStoreFailure) return { summary: error.summary, downstream: `object store: ${error.store}`, cause: error };
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { summary: `the object store failed (${reason})`, downstream: 'object store', cause: error };
}
