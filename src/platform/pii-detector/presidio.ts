// A downstream detector over HTTP: Microsoft Presidio's analyzer (`POST /analyze` with
// `{text, language, context}`, answering a list of `{entity_type, start, end, score,
// recognition_metadata}`). Each field's values go in one call, one value per line, with the
// field's name as context words; entity spans are mapped back to the value they fall in.
// Any failure (a refusal, 401 included, an answer we cannot read, no answer in time) is the
// contract's 500 ERR_BAD_REQUEST, whose message names what the detector answered.
import { GatewayError } from '../../errors.js';
import type { DetectContext, FieldSample, PiiDetector, PiiRules, PiiType, ValueEvidence } from './pii-detector.js';

export interface PresidioSettings {
  /** Base URL of the analyzer, e.g. http://presidio-analyzer:3000 */
  url: string;
  timeoutMs: number;
  /** Sent as `Authorization: Bearer <token>` when the analyzer sits behind an authenticating proxy. */
  token?: string;
}

type Fetch = typeof globalThis.fetch;

/** Calls in flight at once for one request. */
const CONCURRENCY = 4;
const ANSWER_SNIPPET = 200;

/** Presidio's entity types in our vocabulary; others pass through in lower case, DATE_TIME and the like are no one's alone. */
const ENTITY_TYPES: Readonly<Record<string, PiiType | null>> = {
  EMAIL_ADDRESS: 'email',
  PHONE_NUMBER: 'phone',
  CREDIT_CARD: 'credit_card',
  IBAN_CODE: 'iban',
  IP_ADDRESS: 'ip_address',
  US_SSN: 'ssn',
  IN_AADHAAR: 'aadhaar',
  IN_PAN: 'pan',
  US_PASSPORT: 'passport',
  IN_PASSPORT: 'passport',
  UK_PASSPORT: 'passport',
  PERSON: 'name',
  LOCATION: 'address',
  DATE_TIME: null,
  NRP: null,
  URL: null,
};
/** Region prefixes of Presidio's country-specific recognisers (UK is GB in ISO 3166). */
const REGION_PREFIXES: Readonly<Record<string, string>> = { US: 'US', UK: 'GB', IN: 'IN', AU: 'AU', SG: 'SG', IT: 'IT', ES: 'ES', PL: 'PL', FI: 'FI', KR: 'KR', NG: 'NG', TH: 'TH' };

interface RecognizerResult {
  entity_type: string;
  start: number;
  end: number;
  score: number;
  recognition_metadata?: { recognizer_name?: string };
}

function isResult(value: unknown): value is RecognizerResult {
  const r = value as RecognizerResult;
  return r !== null && typeof r === 'object' && typeof r.entity_type === 'string' && Number.isInteger(r.start) && Number.isInteger(r.end) && typeof r.score === 'number';
}

export function downstreamFailure(what: string): GatewayError {
  return new GatewayError('ERR_BAD_REQUEST', `PII analysis failed: the PII detector ${what}`);
}

export class PresidioPiiDetector implements PiiDetector {
  readonly name: string;
  /** The analyze endpoint and the request headers, worked out once. */
  private readonly analyzeUrl: string;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly settings: PresidioSettings,
    private readonly nameWords: PiiRules['nameWords'],
    private readonly fetchImpl: Fetch = globalThis.fetch,
  ) {
    this.name = `downstream detector (Presidio analyzer) at ${settings.url}`;
    this.analyzeUrl = `${settings.url.replace(/\/+$/, '')}/analyze`;
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...(settings.token ? { authorization: `Bearer ${settings.token}` } : {}) };
  }

  async detect(fields: readonly FieldSample[], context: DetectContext): Promise<ValueEvidence[]> {
    // One failed call fails the request: the others are cancelled rather than left running.
    const abort = new AbortController();
    const evidence: ValueEvidence[] = [];
    let next = 0;
    const worker = async () => {
      while (next < fields.length && !abort.signal.aborted) {
        const field = fields[next++]!;
        evidence.push(...(await this.analyzeField(field, context, abort.signal)));
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, fields.length) }, worker));
    } catch (error) {
      abort.abort();
      throw error;
    }
    return evidence;
  }

  private async analyzeField(field: FieldSample, context: DetectContext, cancel: AbortSignal): Promise<ValueEvidence[]> {
    // One value per line; line breaks inside a value become spaces so offsets stay put.
    const lines = field.values.map((value) => value.replace(/[\r\n]/g, ' '));
    const starts: number[] = [];
    let offset = 0;
    for (const line of lines) {
      starts.push(offset);
      offset += line.length + 1;
    }
    const leaf = field.path.split('.').pop()!;
    const body = { text: lines.join('\n'), language: 'en', context: this.nameWords(leaf), correlation_id: context.datasetId };
    const results = await this.call(body, cancel);

    // The best score per (value, type), then summed per (type, recogniser, region).
    const best = new Map<string, { type: PiiType; code: string; region: string; score: number }>();
    for (const result of results) {
      const type = ENTITY_TYPES[result.entity_type] === undefined ? result.entity_type.toLowerCase() : ENTITY_TYPES[result.entity_type];
      if (!type) continue;
      const index = valueAt(starts, result.start);
      if (index < 0) continue;
      const prefix = REGION_PREFIXES[result.entity_type.split('_')[0]!];
      const code = (result.recognition_metadata?.recognizer_name ?? result.entity_type).toLowerCase();
      const key = `${index}\u0000${type}`;
      const score = Math.min(1, Math.max(0, result.score));
      if ((best.get(key)?.score ?? -1) < score) best.set(key, { type, code, region: prefix ?? '', score });
    }
    const byDetector = new Map<string, ValueEvidence>();
    for (const hit of best.values()) {
      const key = `${hit.type}\u0000${hit.code}\u0000${hit.region}`;
      const entry = byDetector.get(key) ?? { field: field.path, type: hit.type, code: hit.code, resourceKey: `pii.presidio.${hit.code}`, region: hit.region, hits: 0, confidenceSum: 0 };
      entry.hits += 1;
      entry.confidenceSum += hit.score;
      byDetector.set(key, entry);
    }
    return [...byDetector.values()];
  }

  private async call(body: unknown, cancel: AbortSignal): Promise<RecognizerResult[]> {
    let response: Response;
    try {
      response = await this.fetchImpl(this.analyzeUrl, {
        method: 'POST',
        headers: this.headers,
        body: JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.any([cancel, AbortSignal.timeout(this.settings.timeoutMs)]),
      });
    } catch (error) {
      const e = error as { name?: string; message?: string; cause?: { code?: string } };
      if (e?.name === 'TimeoutError') throw downstreamFailure(`did not answer within ${this.settings.timeoutMs} ms`);
      throw downstreamFailure(`could not be reached (${e?.cause?.code ?? e?.message ?? String(error)})`);
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      const said = text.trim().slice(0, ANSWER_SNIPPET);
      // "Request failed with status code <n>" is the original's message for this case; clients match on it.
      throw new GatewayError('ERR_BAD_REQUEST', `Request failed with status code ${response.status}: the PII detector refused the call${said ? ` (${said})` : ''}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw downstreamFailure(`answered HTTP ${response.status} with a body that is not JSON`);
    }
    if (!Array.isArray(parsed) || !parsed.every(isResult)) throw downstreamFailure(`answered HTTP ${response.status} with a body that is not a list of recognizer results`);
    return parsed;
  }
}

/** Index of the value whose line holds `position`, or -1. */
function valueAt(starts: readonly number[], position: number): number {
  let low = 0;
  let high = starts.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (starts[middle]! <= position) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}
