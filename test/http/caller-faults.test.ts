// Requests that fail through the caller's own fault get the contract's failure envelope with a
// 4xx, never a 500 and never a held connection: an expression nested past what the parser can
// recurse, a client that stalls in the middle of its body, a path with doubled slashes.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ REQUEST_BODY_TIMEOUT_MS: '1000' });
});
afterAll(async () => {
  await gw?.stop();
});

/** Sends `head` and the start of a body, then nothing; resolves with what the server answers and when the connection closed. */
function stalledRequest(head: string, partialBody: string): Promise<{ answer: string; closed: boolean }> {
  const { hostname, port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect(Number(port), hostname, () => socket.write(`${head}\r\n\r\n${partialBody}`));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, closed: true }));
  });
}

describe('caller faults', () => {
  it('refuses a metric expression of 4,990 nested parentheses (as long as a metric may be) with 400, naming the nesting limit', async () => {
    const metric = `${'('.repeat(4990)}up${')'.repeat(4990)}`;
    const response = await gw.http.post('/alerts/v1/metric/alias/create').send({ alias: 'deep', component: 'Processing', metric });
    expect(response.status).toBe(400);
    expect(response.body.params.status).toBe('FAILED');
    expect(response.body.error.message).toMatch(/nests deeper than 200 levels/);
    expect((await gw.sql("SELECT 1 FROM metric_aliases WHERE alias = 'deep'")).rowCount).toBe(0);
  });

  it('answers a client that stalls mid-body 408 REQUEST_BODY_TIMEOUT after REQUEST_BODY_TIMEOUT_MS and closes its connection', async () => {
    const body = JSON.stringify(envelope('api.query.template.list', {}));
    const head = [`POST /v2/template/list HTTP/1.1`, `Host: ${new URL(gw.url).host}`, 'Content-Type: application/json', `Content-Length: ${body.length + 100}`].join('\r\n');
    const { answer, closed } = await stalledRequest(head, body);
    expect(closed).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    const envelopeText = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    expect(envelopeText.slice(-2)).toBe('}\n');
    expect(JSON.parse(envelopeText)).toMatchObject({ params: { status: 'FAILED' }, responseCode: 'REQUEST_TIMEOUT', error: { code: 'REQUEST_BODY_TIMEOUT' } });
  });

  it('answers a path with doubled slashes with the ROUTE_NOT_FOUND envelope, not a bare page', async () => {
    const response = await gw.http.get('//v2//template/read/x');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ params: { status: 'FAILED' }, responseCode: 'NOT_FOUND', error: { code: 'ROUTE_NOT_FOUND' } });
    const elsewhere = await gw.http.get('/no/such/page');
    expect(elsewhere.body.error.code).toBe('ROUTE_NOT_FOUND');
  });
});
