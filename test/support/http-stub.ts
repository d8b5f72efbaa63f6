// A tiny HTTP server standing in for a system the gateway calls (a PII detector, Prometheus): it
// records every request and answers with whatever the test sets, so a test checks both what the
// gateway sends and what it makes of the answer.
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

export interface StubRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface StubAnswer {
  status: number;
  body?: unknown;
  /** Sent as is instead of JSON. */
  text?: string;
  /** Waits this long before answering. */
  delayMs?: number;
}

export interface HttpStub {
  url: string;
  requests: StubRequest[];
  /** Decides the answer to each request; the default answers 200 []. */
  answer: (request: StubRequest) => StubAnswer;
  close(): Promise<void>;
}

export async function startHttpStub(): Promise<HttpStub> {
  const sockets = new Set<import('node:net').Socket>();
  const stub: HttpStub = {
    url: '',
    requests: [],
    answer: () => ({ status: 200, body: [] }),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: StubRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      stub.requests.push(request);
      const answer = stub.answer(request);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': answer.text === undefined ? 'application/json' : 'text/plain' });
        res.end(answer.text ?? JSON.stringify(answer.body ?? null));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}

export interface SilentServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * A server that accepts connections and never answers (a caller's time limit is what it tests).
 * stop() also ends the connections it accepted: a socket nobody reads never sees its caller hang up,
 * and would keep the test process alive after the run.
 */
export async function startSilentServer(): Promise<SilentServer> {
  const accepted = new Set<Socket>();
  const server = net.createServer((socket) => accepted.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of accepted) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
