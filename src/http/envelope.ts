// The contract's response envelope (seed section 1), and the failure writer every REST answer and
// HTTP-level refusal (timeouts, cross-site requests) goes through.
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { ErrorKind, GatewayError } from '../errors.js';
import { ANSWER_END } from '../platform/cache/prepared-answer.js';
import { noteRequestFailure } from '../request-failure.js';

export interface EnvelopeParams {
  status: 'SUCCESS' | 'FAILED';
  msgid?: string;
  resmsgid: string;
}

/** How a failure is shown on the wire: the envelope's responseCode and the HTTP status. */
export interface ErrorPresentation {
  kind: ErrorKind;
  httpStatus: number;
  /** The message as this transport words it (its callers' names for the fields it names), when not the error's own. */
  message?: string;
}

export interface FailureEnvelope {
  id: string;
  ver: 'v2';
  ts: string;
  params: EnvelopeParams;
  responseCode: ErrorKind;
  error: { code: string; message: string; trace: '' };
  result: Record<string, never>;
}

/** ISO 8601 local time with a numeric offset and no milliseconds, as the original writes it. */
export function envelopeTimestamp(date = new Date()): string {
  const offsetMinutes = -date.getTimezoneOffset();
  const sign = offsetMinutes >= 0 ? '+' : '-';
  const pad = (value: number) => String(Math.abs(value)).padStart(2, '0');
  const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19);
  return `${local}${sign}${pad(Math.trunc(offsetMinutes / 60))}:${pad(offsetMinutes % 60)}`;
}

function params(status: EnvelopeParams['status'], msgid: string | undefined): EnvelopeParams {
  // msgid is echoed only when the request carried a non-empty one.
  return msgid ? { status, msgid, resmsgid: randomUUID() } : { status, resmsgid: randomUUID() };
}

// The timestamp changes once a second: formatted once per second, not per answer.
let stampSecond = -1;
let stampText = '';
function currentTimestamp(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    stampText = envelopeTimestamp(new Date(now));
  }
  return stampText;
}

/**
 * The part of a success envelope in front of its `result`, with the contract's keys in the
 * contract's order: `{"id":…,"ver":"v2","ts":…,"params":{…},"responseCode":"OK","result":`. A result
 * is serialised once (and a kept one not at all) and spliced in behind it.
 */
export function successEnvelopeHead(apiId: string, msgid: string | undefined): string {
  const params = msgid ? `{"status":"SUCCESS","msgid":${JSON.stringify(msgid)},"resmsgid":"${randomUUID()}"}` : `{"status":"SUCCESS","resmsgid":"${randomUUID()}"}`;
  return `{"id":${JSON.stringify(apiId)},"ver":"v2","ts":"${currentTimestamp()}","params":${params},"responseCode":"OK","result":`;
}

/** The success envelope as JSON text around an already serialised `result`. */
export function successEnvelopeJson(apiId: string, msgid: string | undefined, resultJson: string): string {
  return `${successEnvelopeHead(apiId, msgid)}${resultJson}}${ANSWER_END}`;
}

/** A failure envelope as the text a REST answer sends. */
export function failureEnvelopeText(envelope: FailureEnvelope): string {
  return `${JSON.stringify(envelope)}${ANSWER_END}`;
}

export function failureEnvelope(apiId: string, msgid: string | undefined, kind: ErrorKind, code: string, message: string): FailureEnvelope {
  return {
    id: apiId,
    ver: 'v2',
    ts: envelopeTimestamp(),
    params: params('FAILED', msgid),
    responseCode: kind,
    error: { code, message, trace: '' },
    result: {},
  };
}

/** The caller's msgid, when the body is an envelope that has one. */
export function requestMsgid(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'params' in body) {
    const p = (body as { params?: unknown }).params;
    if (p && typeof p === 'object' && 'msgid' in p) {
      const msgid = (p as { msgid?: unknown }).msgid;
      if (typeof msgid === 'string' && msgid !== '' && msgid.length <= 256) return msgid;
    }
  }
  return undefined;
}

/** Answers `error` in the failure envelope, shown as `shown` (a REST entry may present a code its own way). */
export function sendFailure(res: Response, apiId: string, msgid: string | undefined, error: GatewayError, shown: ErrorPresentation = error): void {
  if (error.headers) res.set(error.headers);
  // Counted by API id and code (src/http/use-observability.ts, gateway_rest_failures_total).
  res.locals.errorCode = error.code;
  noteRequestFailure(error.code, error);
  res
    .status(shown.httpStatus)
    .type('json')
    .send(failureEnvelopeText(failureEnvelope(apiId, msgid, shown.kind, error.code, shown.message ?? error.message)));
}
