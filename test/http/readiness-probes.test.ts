// Readiness asks Kafka and Druid too when they are configured (issue 50), as it asks the object
// store: /readyz answers 503 naming the system and the reason while one does not answer, and 200
// once it does. No broker runs here, so Kafka's side is a closed port; Druid is an HTTP stand-in.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findFreePort } from '../../src/platform/database/embedded.js';
import { startHttpStub, type HttpStub } from '../support/http-stub.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { sleep } from '../support/datasets.js';

/** How long /readyz reuses one answer of a check (src/http/health.ts), and a margin. */
const CHECK_REUSED_MS = 5_000 + 300;

let druid: HttpStub;
let gw: TestGateway;
let kafkaPort: number;

beforeAll(async () => {
  druid = await startHttpStub();
  kafkaPort = await findFreePort();
  gw = await startTestGateway({ KAFKA_BROKERS: `127.0.0.1:${kafkaPort}`, KAFKA_TIMEOUT_MS: '2000', DRUID_URL: druid.url });
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await druid?.close();
});

describe('/readyz with KAFKA_BROKERS and DRUID_URL', () => {
  it('answers 503 naming Kafka, its brokers and why, while Druid and the database answer', async () => {
    const response = await gw.http.get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body.status).toBe('unavailable');
    expect(response.body.checks).toMatchObject({ database: 'ok', queryEngine: 'ok' });
    expect(response.body.checks.eventBus).toMatch(new RegExp(`^Kafka at 127\\.0\\.0\\.1:${kafkaPort} does not answer: .*(ECONNREFUSED|Connection error)`));
    expect(druid.requests.some((request) => request.method === 'GET' && request.path === '/status/health')).toBe(true);
  });

  it('names Druid and its answer when Druid stops answering, and says ok again once it answers', async () => {
    druid.answer = (request) => (request.path === '/status/health' ? { status: 503, body: { error: 'Service Unavailable', errorMessage: 'broker starting' } } : { status: 200, body: [] });
    await sleep(CHECK_REUSED_MS);
    const down = await gw.http.get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body.checks.queryEngine).toBe('Druid answered 503: Service Unavailable: broker starting');

    druid.answer = () => ({ status: 200, body: [] });
    await sleep(CHECK_REUSED_MS);
    expect((await gw.http.get('/readyz')).body.checks.queryEngine).toBe('ok');
  }, 20_000);
});
