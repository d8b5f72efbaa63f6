// One HTTP call to an alert manager: JSON in and out, a time limit, and a failure that says which
// manager answered what, so the caller's failure envelope is useful without reading our logs.
import { GatewayError } from '../../errors.js';

export interface ManagerResponse {
  status: number;
  /** Parsed JSON when the body is JSON, else the text. */
  body: unknown;
  text: string;
}

export interface ManagerRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
}

const ANSWER_SNIPPET = 300;

/** Sends the request; any HTTP status comes back (callers decide which ones are fine). */
export async function callManager(manager: string, request: ManagerRequest): Promise<ManagerResponse> {
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: { accept: 'application/json', ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      // A manager never needs to send us elsewhere; following a redirect could leave the configured host.
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (error) {
    throw managerFailure(manager, `could not be reached (${describeFetchError(error, request.timeoutMs)})`);
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: keep the text (Alertmanager answers some errors as bare strings).
  }
  return { status: response.status, body, text };
}

export function managerFailure(manager: string, what: string): GatewayError {
  return new GatewayError('ALERT_MANAGER_FAILED', `${manager} ${what}; nothing was changed on the gateway`);
}

/** `answered HTTP 400: end time can't be in the past` */
export function unexpectedAnswer(manager: string, response: ManagerResponse): GatewayError {
  const said = response.text.trim().replace(/^"|"$/g, '').slice(0, ANSWER_SNIPPET);
  return managerFailure(manager, `answered HTTP ${response.status}${said ? `: ${said}` : ''}`);
}

export function describeFetchError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
}

export function ok(status: number): boolean {
  return status >= 200 && status < 300;
}

/** A base URL without its trailing slash, so paths can be appended. */
export function baseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}
