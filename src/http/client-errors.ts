// Requests Node's HTTP parser refuses before express sees them (headers or URL too large, malformed
// request line): answered with the contract's failure envelope instead of Node's bare status line.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { failureEnvelope } from '../../rest/envelope.js';

const STATUS_BY_CODE: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  HPE_URI_TOO_LONG: [414, 'URI Too Long'],
};

export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, reason] = STATUS_BY_CODE[error.code ?? ''] ?? [400, 'Bad Request'];
    const message = status === 400 ? 'The request is not valid HTTP.' : `The request's ${status === 431 ? 'headers (URL included)' : 'URL'} are larger than this server accepts.`;
    const body = JSON.stringify(failureEnvelope('api', undefined, 'BAD_REQUEST', 'INVALID_INPUT', message));
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
