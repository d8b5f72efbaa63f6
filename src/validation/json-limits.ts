// Length limits on a parsed JSON document: no string value or object key longer than
// `maxStringLength` characters, no array with more than `maxArrayLength` items. Applied at the edge
// of both transports (REST bodies, GraphQL variables) before any validator or service sees the
// document, so free-form parts (dataset definitions, events, sample records) are bounded too.
//
// The walk is iterative (an explicit stack of cursors, never recursion), so a deeply nested hostile
// document costs memory in proportion to its size and cannot overflow the call stack; it visits
// values in document order and stops at the first one over a limit.

export interface JsonLimits {
  /** Most characters (Unicode code points, as JSON Schema's maxLength counts) of a string or key. */
  maxStringLength: number;
  /** Most items of an array. */
  maxArrayLength: number;
}

/** What went over a limit: a string value, an object key, or an array. */
export type JsonLimitKind = 'string' | 'key' | 'array';

/**
 * A string or key with an unpaired surrogate (JSON allows `"\ud800"`): not Unicode text, so it
 * cannot be stored as UTF-8 nor passed to Prisma, which fails on it. Refused with the limits.
 */
const UNPAIRED_SURROGATE = /[\uD800-\uDFFF]/u;

/** The setting each limit comes from, named in messages so a caller (or operator) knows which. */
export const JSON_LIMIT_SETTINGS: Readonly<Record<JsonLimitKind, string>> = Object.freeze({
  string: 'JSON_MAX_STRING_LENGTH',
  key: 'JSON_MAX_STRING_LENGTH',
  array: 'JSON_MAX_ARRAY_LENGTH',
});

export interface JsonLimitViolation {
  kind: JsonLimitKind | 'unpaired-surrogate';
  /**
   * JSON Pointer (RFC 6901) of the offending value; for a key, of the member the key names (its last
   * segment is the key). '' is the document itself.
   */
  path: string;
  /** Characters of the string or key, items of the array (0 for an unpaired surrogate). */
  length: number;
  limit: number;
  /** For an unpaired surrogate: whether it is in an object key (else in a string value). */
  inKey?: boolean;
}

/** Characters of `text` as Unicode code points (a surrogate pair is one character). */
export function characterCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count;
}

/** The characters of `text` when they are over `limit`, else undefined (cheap for short strings). */
function overLength(text: string, limit: number): number | undefined {
  // A string has at least as many UTF-16 units as characters: at or under the limit in units is under it.
  if (text.length <= limit) return undefined;
  const count = characterCount(text);
  return count > limit ? count : undefined;
}

/** One open array or object being walked: its members, and the index of the next one. */
interface Cursor {
  container: readonly unknown[] | Record<string, unknown>;
  keys: string[] | undefined;
  next: number;
}

/**
 * An object as JSON.parse makes it. Anything else (a GraphQL Upload among the variables of a
 * multipart request, say) is not JSON text the caller sent, and is not walked: it may even refer to itself.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function pointer(segments: readonly (string | number)[]): string {
  let out = '';
  for (const segment of segments) out += `/${typeof segment === 'number' ? segment : segment.replaceAll('~', '~0').replaceAll('/', '~1')}`;
  return out;
}

/** The first string, key or array of `document` (in document order) over `limits`, or undefined. */
export function findJsonLimitViolation(document: unknown, limits: JsonLimits): JsonLimitViolation | undefined {
  const cursors: Cursor[] = [];
  // Path of the value being visited: one segment per open cursor.
  const segments: (string | number)[] = [];
  let value: unknown = document;
  for (;;) {
    if (typeof value === 'string') {
      const length = overLength(value, limits.maxStringLength);
      if (length !== undefined) return { kind: 'string', path: pointer(segments), length, limit: limits.maxStringLength };
      if (UNPAIRED_SURROGATE.test(value)) return { kind: 'unpaired-surrogate', path: pointer(segments), length: 0, limit: 0 };
    } else if (Array.isArray(value)) {
      if (value.length > limits.maxArrayLength) return { kind: 'array', path: pointer(segments), length: value.length, limit: limits.maxArrayLength };
      cursors.push({ container: value, keys: undefined, next: 0 });
      segments.push(0);
    } else if (isPlainObject(value)) {
      cursors.push({ container: value, keys: Object.keys(value), next: 0 });
      segments.push('');
    }

    // The next value: the next member of the innermost open container that has one left.
    let found = false;
    while (cursors.length > 0) {
      const cursor = cursors[cursors.length - 1]!;
      const index = cursor.next;
      if (cursor.keys === undefined) {
        const items = cursor.container as readonly unknown[];
        if (index < items.length) {
          cursor.next += 1;
          segments[segments.length - 1] = index;
          value = items[index];
          found = true;
          break;
        }
      } else if (index < cursor.keys.length) {
        cursor.next += 1;
        const key = cursor.keys[index]!;
        segments[segments.length - 1] = key;
        const length = overLength(key, limits.maxStringLength);
        if (length !== undefined) return { kind: 'key', path: pointer(segments), length, limit: limits.maxStringLength };
        if (UNPAIRED_SURROGATE.test(key)) return { kind: 'unpaired-surrogate', path: pointer(segments), length: 0, limit: 0, inKey: true };
        value = (cursor.container as Record<string, unknown>)[key];
        found = true;
        break;
      }
      cursors.pop();
      segments.pop();
    }
    if (!found) return undefined;
  }
}

/** Longest path segment a message quotes in full; longer ones (a huge key) are cut. */
const MESSAGE_SEGMENT_MAX = 64;
/** Path segments a message quotes from each end of a very deep path; the middle becomes `…`. */
const MESSAGE_HEAD_SEGMENTS = 20;
const MESSAGE_TAIL_SEGMENTS = 10;

/**
 * `path` (after `root`) for a message: the document itself as `/`, segments over 64 characters cut,
 * and the middle of a very deep path left out, so that a message stays short whatever the document.
 */
export function displayPath(path: string, root = ''): string {
  let segments = `${root}${path}`.split('/').slice(1);
  if (segments.length > MESSAGE_HEAD_SEGMENTS + MESSAGE_TAIL_SEGMENTS) {
    segments = [...segments.slice(0, MESSAGE_HEAD_SEGMENTS), '…', ...segments.slice(-MESSAGE_TAIL_SEGMENTS)];
  }
  const shown = segments.map((segment) => (segment.length > MESSAGE_SEGMENT_MAX ? `${segment.slice(0, MESSAGE_SEGMENT_MAX)}…` : segment));
  return shown.length === 0 ? '/' : shown.map((segment) => `/${segment}`).join('');
}

const UNPAIRED_SURROGATE_TEXT = 'is not valid Unicode text: it holds an unpaired surrogate (such as \\ud800 without its pair)';

/**
 * The message for a violation, naming the path, the limit and its setting, e.g. `the string at
 * /request/data/0/name is 2000001 characters long; the limit is 1048576 (JSON_MAX_STRING_LENGTH)`.
 * `root` prefixes the path (e.g. `/variables` for a GraphQL operation's variables).
 */
export function describeJsonLimitViolation(violation: JsonLimitViolation, root = ''): string {
  const at = displayPath(violation.path, root);
  if (violation.kind === 'unpaired-surrogate') return `the ${violation.inKey ? 'object key' : 'string'} at ${at} ${UNPAIRED_SURROGATE_TEXT}`;
  const setting = JSON_LIMIT_SETTINGS[violation.kind];
  if (violation.kind === 'array') return `the array at ${at} has ${violation.length} items; the limit is ${violation.limit} (${setting})`;
  const what = violation.kind === 'key' ? 'object key' : 'string';
  return `the ${what} at ${at} is ${violation.length} characters long; the limit is ${violation.limit} (${setting})`;
}
