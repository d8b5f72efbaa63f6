// The CLI's HTTP client: the gateway's REST API (the contract's envelopes), with the caller's token,
// and errors that say what to do: an unreachable gateway names the address and GATEWAY, a refusal
// gives the gateway's code and message.

export interface ClientSettings {
  /** Base URL, e.g. http://localhost:3000 */
  gateway: string;
  /** A bearer token (GATEWAY_TOKEN) or an API key (GATEWAY_API_KEY), when the gateway asks for one. */
  token?: string;
  apiKey?: string;
}

/** A failure the CLI reports as it is, then exits 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export function envelope(apiId: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { id: apiId, ver: 'v2', ts: new Date().toISOString(), params: { msgid: crypto.randomUUID() }, ...fields };
}

export function createClient(settings: ClientSettings) {
  const base = settings.gateway.replace(/\/+$/, '');
  const auth: Record<string, string> = settings.token ? { authorization: `Bearer ${settings.token}` } : settings.apiKey ? { 'x-api-key': settings.apiKey } : {};

  return async function call(method: 'GET' | 'POST', path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: { ...auth, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `cannot reach the gateway at ${base} (${cause?.code ?? cause?.message ?? (error as Error).message}): start it (npm start), or set GATEWAY to its address, e.g. GATEWAY=http://gateway.internal:3000`,
      );
    }
    const text = await response.text();
    let body: Record<string, unknown>;
    try {
      body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      throw new CliError(`${method} ${path}: the answer (HTTP ${response.status}) is not JSON; is ${base} the gateway?`);
    }
    if (!response.ok) {
      const failure = body.error as { code?: string; message?: string } | undefined;
      const hint = response.status === 401 ? ' (set GATEWAY_TOKEN to a bearer token, or GATEWAY_API_KEY to an API key)' : '';
      throw new CliError(`${method} ${path}: HTTP ${response.status} ${failure?.code ?? ''}: ${failure?.message ?? text.slice(0, 300)}${hint}`);
    }
    return { status: response.status, headers: response.headers, body };
  };
}

export type Call = ReturnType<typeof createClient>;
