// Requests Node's HTTP parser refuses before express sees them (headers or URL too large, malformed
// request line), and requests that did not arrive whole in time (a stalled body): answered with the
// contract's failure envelope instead of Node's bare status line.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { failureEnvelope, failureEnvelopeText } from './envelope.js';

const STATUS_BY_CODE: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  HPE_URI_TOO_LONG: [414, 'URI Too Long'],
};

export interface ClientErrorOptions {
  /** REQUEST_BODY_TIMEOUT_MS, for the message of a request that did not arrive in time. */
  bodyTimeoutMs: number;
}

export function answerClientErrors(server: http.Server, options: ClientErrorOptions): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    let body: string;
    let status: number;
    let reason: string;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      [status, reason] = [408, 'Request Timeout'];
      const message = `The request did not arrive whole within ${options.bodyTimeoutMs} ms (REQUEST_BODY_TIMEOUT_MS); its connection is closed.`;
      body = failureEnvelopeText(failureEnvelope('api', undefined, 'REQUEST_TIMEOUT', 'REQUEST_BODY_TIMEOUT', message));
    } else {
      [status, reason] = STATUS_BY_CODE[error.code ?? ''] ?? [400, 'Bad Request'];
      const message = status === 400 ? 'The request is not valid HTTP.' : `The request's ${status === 431 ? 'headers (URL included)' : 'URL'} are larger than this server accepts.`;
      body = failureEnvelopeText(failureEnvelope('api', undefined, 'BAD_REQUEST', 'INVALID_INPUT', message));
    }
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}
