// Recorded REST answers (test/rest/recorded-answers.test.ts): a script of requests run against a real
// gateway over real HTTP, each answer kept as status, the answer's own headers and its exact body
// text, compared byte for byte with the recording made before a change (RECORD_REST_ANSWERS=1
// writes it). Only what changes from run to run is replaced, by the narrow rules of `Normaliser`.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export type Vars = Record<string, string>;

/** One request of a script. Ids the script chooses are fixed strings, so they stay verbatim. */
export interface Step {
  /** What the step does, unique within its script: it names the exchange in a failure. */
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT' | 'HEAD' | 'OPTIONS';
  /** The path and query; a function reads what earlier steps kept (generated ids, version keys). */
  path: string | ((vars: Vars) => string);
  /** A JSON body (sent as application/json). */
  body?: unknown;
  /** A body as it is, with its own content type (text that is not JSON, a multipart form). */
  raw?: { contentType: string; data: string | FormData };
  /** Arranges state the API cannot reach (e.g. a v1 record written with SQL), before the request. */
  arrange?: () => Promise<void>;
  /** Keeps values of the answer (its parsed JSON) for later steps. */
  keep?: (answer: any, vars: Vars) => void;
}

export interface Exchange {
  step: string;
  method: string;
  path: string;
  /** The request body as sent (normalised); absent without one. */
  request?: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Recording {
  /** How the recording was made, for a reader of the file. */
  about: string;
  exchanges: Exchange[];
}

/**
 * Response headers kept: what the answer means, not how it travelled. `date`, `connection`,
 * `keep-alive`, `content-length` (the body is compared) and `transfer-encoding` are left out; an
 * ETag (a hash over volatile values) is kept as `<etag>`, only to say that the answer has one.
 * `x-request-id` is generated per request unless sent: every step sends its own, so it stays verbatim.
 */
const DROPPED_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/**
 * Replaces what differs from run to run by stable placeholders; everything else stays verbatim.
 * The rules, all exact patterns:
 * 1. origins of servers started on random ports (the gateway's, the fixtures') → `<name>`;
 * 2. the envelope's `resmsgid` (a new UUID per answer) → `<resmsgid>`, so that the numbering below counts ids only;
 * 3. UUIDs the gateway generates (any but the script's own, which start 00000000-) → `<uuid-N>`,
 *    numbered by first appearance in the script, so that one id is one placeholder everywhere;
 * 4. ISO date-times within two days of the run → the same shape with letters for the digits
 *    (`YYYY-MM-DDThh:mm:ss.SSSZ`); the script's own dates (years away) stay verbatim;
 * 5. epoch milliseconds (13 digits) and seconds (10 digits, a fraction too) within two days of the run → `<epoch-ms>`, `<epoch-s>`;
 * 6. a signed link's `signature=` value → `<signature>`;
 * 7. a sealed connector configuration (random nonce) `sealed:v1:…` → `sealed:v1:<sealed>`;
 * 8. the six random hex characters an upload link adds to a file name (`user_uploads/sample_07e06b.json`) → `_<suffix>`;
 * 9. the minutes since the last event of a dataset's freshness figures (a duration up to now) → `<minutes>`.
 */
export class Normaliser {
  private readonly uuids = new Map<string, string>();
  private readonly origins: [string, string][];
  private readonly now = Date.now();
  private static readonly WINDOW_MS = 2 * 24 * 3_600_000;

  constructor(origins: Record<string, string>) {
    // Longest first, so that an origin is never cut by a shorter one it starts with.
    this.origins = Object.entries(origins)
      .map(([name, origin]): [string, string] => [origin, `<${name}>`])
      .sort((a, b) => b[0].length - a[0].length);
  }

  private recent(ms: number): boolean {
    return Math.abs(ms - this.now) <= Normaliser.WINDOW_MS;
  }

  text(value: string): string {
    let text = value;
    for (const [origin, placeholder] of this.origins) text = text.split(origin).join(placeholder);
    text = text.replace(/"resmsgid":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/g, '"resmsgid":"<resmsgid>"');
    text = text.replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, (uuid) => {
      if (uuid.startsWith('00000000-')) return uuid;
      const known = this.uuids.get(uuid.toLowerCase());
      if (known) return known;
      const placeholder = `<uuid-${this.uuids.size + 1}>`;
      this.uuids.set(uuid.toLowerCase(), placeholder);
      return placeholder;
    });
    text = text.replace(/\b(\d{4})-(\d{2})-(\d{2})([T ])(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?/g, (match, ...parts: string[]) => {
      const [, , , separator, , , , fraction, zone] = parts;
      if (!this.recent(Date.parse(match.replace(' ', 'T')))) return match;
      return `YYYY-MM-DD${separator}hh:mm:ss${fraction ? `.${'S'.repeat(fraction.length - 1)}` : ''}${zone ?? ''}`;
    });
    text = text.replace(/(?<![\d.])\d{13}(?![\d])/g, (match) => (this.recent(Number(match)) ? '<epoch-ms>' : match));
    text = text.replace(/(?<![\d.])\d{10}(\.\d+)?(?![\d])/g, (match) => (this.recent(Number(match) * 1000) ? '<epoch-s>' : match));
    text = text.replace(/([?&]signature=)[A-Za-z0-9_\-%]+/g, '$1<signature>');
    text = text.replace(/sealed:v1:[A-Za-z0-9+/=_.-]+/g, 'sealed:v1:<sealed>');
    text = text.replace(/(user_uploads\/[^"?\s]*)_[0-9a-f]{6}(?=[."?]|$)/g, '$1_<suffix>');
    text = text.replace(/("type":"(?:average_time_difference_in_min|freshness_query_time_in_min)","threshold":[\d.]+,"value":)-?[\d.]+/g, '$1<minutes>');
    return text;
  }
}

function resolve(value: string | ((vars: Vars) => string), vars: Vars): string {
  return typeof value === 'function' ? value(vars) : value;
}

/** Runs `steps` in order against `baseUrl`, one at a time, and answers the normalised exchanges. */
export async function runScript(baseUrl: string, steps: readonly Step[], normaliser: Normaliser, vars: Vars = {}): Promise<Exchange[]> {
  const names = new Set<string>();
  const exchanges: Exchange[] = [];
  for (const [index, step] of steps.entries()) {
    if (names.has(step.name)) throw new Error(`two steps are named "${step.name}"`);
    names.add(step.name);
    await step.arrange?.();
    const requestPath = resolve(step.path, vars);
    const headers: Record<string, string> = { 'x-request-id': `recorded-${String(index + 1).padStart(3, '0')}` };
    let body: string | FormData | undefined;
    let requestText: string | undefined;
    if (step.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(step.body, (_key, value: unknown) => (typeof value === 'function' ? (value as (v: Vars) => unknown)(vars) : value));
      requestText = body;
    } else if (step.raw) {
      body = step.raw.data;
      if (typeof step.raw.data === 'string') {
        headers['content-type'] = step.raw.contentType;
        requestText = `(${step.raw.contentType}) ${step.raw.data}`;
      } else {
        requestText = `(multipart/form-data) ${[...step.raw.data.keys()].join(', ')}`;
      }
    }
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${requestPath}`, { method: step.method, headers, body, redirect: 'manual' });
    } catch (error) {
      throw new Error(`step "${step.name}" (${step.method} ${requestPath}) got no answer: ${String(error)}`, { cause: error });
    }
    const text = await response.text();
    const kept: Record<string, string> = {};
    for (const [name, value] of [...response.headers.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (DROPPED_HEADERS.has(name)) continue;
      kept[name] = name === 'etag' ? '<etag>' : normaliser.text(value);
    }
    const exchange: Exchange = { step: step.name, method: step.method, path: normaliser.text(requestPath), status: response.status, headers: kept, body: normaliser.text(text) };
    if (requestText !== undefined) exchange.request = normaliser.text(requestText);
    exchanges.push(exchange);
    if (step.keep) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new Error(`step "${step.name}" keeps values of its answer, which is not JSON (${response.status}): ${text.slice(0, 300)}`);
      }
      try {
        step.keep(parsed, vars);
      } catch (error) {
        throw new Error(`step "${step.name}" could not keep values of its answer (${response.status}: ${text.slice(0, 300)}): ${String(error)}`, { cause: error });
      }
    }
  }
  return exchanges;
}

/** A short, readable account of where `actual` first differs from `expected`. */
function textDiff(expected: string, actual: string): string {
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at += 1;
  const from = Math.max(0, at - 60);
  // Line breaks and tabs shown as \n, \r, \t so that each side stays on one line.
  const visible = (text: string) => text.replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  const cut = (text: string) => `${from > 0 ? '…' : ''}${visible(text.slice(from, at + 80))}${text.length > at + 80 ? '…' : ''}`;
  return `first difference at character ${at}:\n      recorded: ${cut(expected)}\n      now:      ${cut(actual)}`;
}

function exchangeDiff(expected: Exchange, actual: Exchange): string[] {
  const lines: string[] = [];
  if (expected.method !== actual.method || expected.path !== actual.path) lines.push(`request line: recorded ${expected.method} ${expected.path}, now ${actual.method} ${actual.path}`);
  if (expected.request !== actual.request) lines.push(`request body: ${textDiff(expected.request ?? '', actual.request ?? '')}`);
  if (expected.status !== actual.status) lines.push(`status: recorded ${expected.status}, now ${actual.status}`);
  for (const name of [...new Set([...Object.keys(expected.headers), ...Object.keys(actual.headers)])].sort()) {
    if (expected.headers[name] !== actual.headers[name]) lines.push(`header ${name}: recorded ${JSON.stringify(expected.headers[name])}, now ${JSON.stringify(actual.headers[name])}`);
  }
  if (expected.body !== actual.body) lines.push(`body: ${textDiff(expected.body, actual.body)}`);
  return lines;
}

/** Every difference between a recording and this run's exchanges, as a message (empty when they agree). */
export function compareExchanges(recorded: readonly Exchange[], now: readonly Exchange[], shown = 5): string {
  const problems: string[] = [];
  const count = Math.max(recorded.length, now.length);
  let differing = 0;
  for (let index = 0; index < count; index += 1) {
    const expected = recorded[index];
    const actual = now[index];
    if (!expected || !actual || expected.step !== actual.step) {
      problems.push(
        `#${index + 1}: the script and the recording part here: recorded ${expected ? `"${expected.step}"` : 'nothing'}, now ${actual ? `"${actual.step}"` : 'nothing'} (re-record after changing the script)`,
      );
      break;
    }
    const lines = exchangeDiff(expected, actual);
    if (lines.length === 0) continue;
    differing += 1;
    if (differing <= shown) problems.push(`#${index + 1} ${actual.method} ${actual.path} — step "${actual.step}":\n    ${lines.join('\n    ')}`);
  }
  if (differing > shown) problems.push(`… and ${differing - shown} more exchanges differ`);
  return problems.join('\n');
}

export const RECORDING = process.env.RECORD_REST_ANSWERS === '1';

/**
 * Writes the recording (RECORD_REST_ANSWERS=1), or reads it and answers how this run differs from it.
 * A missing recording is a failure, never a skip.
 */
export async function checkAgainstRecording(file: string, about: string, exchanges: readonly Exchange[]): Promise<string> {
  if (RECORDING) {
    await mkdir(path.dirname(file), { recursive: true });
    const recording: Recording = { about, exchanges: [...exchanges] };
    await writeFile(file, `${JSON.stringify(recording, null, 2)}\n`);
    return '';
  }
  if (!existsSync(file)) return `no recording at ${file}: run this test once with RECORD_REST_ANSWERS=1 (on the code whose answers it must keep)`;
  const recording = JSON.parse(await readFile(file, 'utf8')) as Recording;
  return compareExchanges(recording.exchanges, exchanges);
}
