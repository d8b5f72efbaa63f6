// Prometheus metrics at GET /metrics: the named series appear after traffic over REST, GraphQL and
// ingestion, and their labels stay bounded (API ids, operation names, status classes; never ids).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope, SQL_QUERY } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { BoundedLabel, OVERFLOW_LABEL } from '../../src/telemetry/metrics.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format into samples. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const DATASET = 'metrics-live';
const MISSING_TEMPLATE = 'no_such_template_4711';
const REQUEST_ID = 'metrics-request-id-0042';
const MSGID = 'metrics-msgid-0042';

describe('GET /metrics', () => {
  let samples: Sample[];
  let text: string;

  beforeAll(async () => {
    await seedDataset(gw, DATASET, 'Live');
    // REST: a success, a 404 and a 400.
    await gw.http
      .post('/v2/template/create')
      .set('x-request-id', REQUEST_ID)
      .send(envelope('api.query.template.create', { template_name: 'Metrics probe', query_type: 'sql', query: SQL_QUERY }));
    await gw.http.get(`/v2/template/read/${MISSING_TEMPLATE}`);
    await gw.http.post('/v2/template/list').send({ request: { limit: -1 } });
    // GraphQL: a named operation, an anonymous one, one that fails.
    await gw.http.post('/graphql').send({ query: 'query ListTemplatesForMetrics { templates(first: 5) { nodes { id } } }' });
    await gw.http.post('/graphql').send({ query: '{ version }' });
    await gw.http.post('/graphql').send({ query: `query ReadMissing { template(id: "${MISSING_TEMPLATE}") { id } }` });
    // Ingestion: accepted into a Live dataset, rejected for an unknown one.
    const ingested = await gw.http.post(`/v2/data/in/${DATASET}`).send({ id: 'api.data.in', ver: 'v2', ts: new Date().toISOString(), params: { msgid: MSGID }, data: [{ id: 'a' }, { id: 'b' }] });
    expect(ingested.status).toBe(200);
    await gw.http.post('/v2/data/in/no-such-dataset-77').send({ id: 'api.data.in', ver: 'v2', ts: new Date().toISOString(), params: { msgid: 'm2' }, data: { id: 'c' } });
    const response = await gw.http.get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    text = response.text;
    samples = parseExposition(text);
  });

  function find(name: string, labels: Record<string, string> = {}): Sample | undefined {
    return samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  }

  it('counts REST requests by API id and status class, with a duration histogram', () => {
    expect(find('gateway_http_requests_total', { transport: 'rest', operation: 'api.query.template.create', status_class: '2xx' })?.value).toBe(1);
    expect(find('gateway_http_requests_total', { operation: 'api.query.template.read', status_class: '4xx' })?.value).toBe(1);
    expect(find('gateway_http_requests_total', { operation: 'api.query.template.list', status_class: '4xx' })?.value).toBe(1);
    expect(find('gateway_http_request_duration_seconds_count', { operation: 'api.query.template.create', method: 'POST' })?.value).toBe(1);
    expect(find('gateway_http_request_duration_seconds_bucket', { operation: 'api.query.template.create', le: '+Inf' })?.value).toBe(1);
  });

  it('counts GraphQL requests by operation name, and their errors by catalogue code', () => {
    expect(find('gateway_http_requests_total', { transport: 'graphql', operation: 'ListTemplatesForMetrics', status_class: '2xx' })?.value).toBe(1);
    expect(find('gateway_http_requests_total', { transport: 'graphql', operation: 'anonymous' })?.value).toBe(1);
    expect(find('gateway_graphql_errors_total', { operation: 'ReadMissing', code: 'QUERY_TEMPLATE_NOT_EXISTS' })?.value).toBe(1);
  });

  it('counts ingestion events by dataset and stage, and unknown datasets under one label', () => {
    expect(find('gateway_ingestion_events_total', { dataset: DATASET, stage: 'received' })?.value).toBe(2);
    expect(find('gateway_ingestion_events_total', { dataset: DATASET, stage: 'processed' })).toBeDefined();
    expect(find('gateway_ingestion_requests_total', { dataset: DATASET, outcome: 'accepted' })?.value).toBe(1);
    expect(find('gateway_ingestion_requests_total', { dataset: OVERFLOW_LABEL, outcome: 'rejected' })?.value).toBe(1);
  });

  it('exposes database pool gauges and process metrics', () => {
    expect(find('gateway_db_pool_clients')?.value).toBeGreaterThanOrEqual(1);
    expect(find('gateway_db_pool_max_clients')?.value).toBe(4);
    expect(find('gateway_db_pool_idle_clients')).toBeDefined();
    expect(find('gateway_db_pool_waiting_requests')).toBeDefined();
    expect(find('process_cpu_user_seconds_total')).toBeDefined();
    expect(find('process_resident_memory_bytes')).toBeDefined();
    expect(find('nodejs_eventloop_lag_seconds')).toBeDefined();
    expect(find('gateway_info', { version: '0.1.0' })?.value).toBe(1);
  });

  it('never carries an id as a label value (dataset ids only in the dataset labels)', () => {
    for (const id of [MISSING_TEMPLATE, 'metrics_probe', REQUEST_ID, MSGID, 'no-such-dataset-77']) expect(text).not.toContain(id);
    for (const sample of samples) {
      // Node's own version numbers are the one numeric label, and bounded.
      if (sample.name === 'nodejs_version_info') continue;
      for (const [label, value] of Object.entries(sample.labels)) {
        if (label === 'le' || label === 'quantile' || label === 'version') continue;
        // The original's node_* series name the dataset dataset_id (bounded as dataset is) and carry the HTTP status.
        if (label === 'dataset' || label === 'dataset_id') continue;
        if (label === 'status' && sample.name.startsWith('node_')) {
          expect(value).toMatch(/^[1-5]\d\d$/);
          continue;
        }
        expect([label, value]).toEqual([label, expect.not.stringMatching(UUID)]);
        expect([label, value]).toEqual([label, expect.not.stringMatching(/^\d+$/)]);
      }
    }
  });
});

describe('BoundedLabel', () => {
  it('keeps the first values it sees and counts the rest under one label', () => {
    const label = new BoundedLabel(2);
    expect([label.value('a'), label.value('b'), label.value('c'), label.value('a')]).toEqual(['a', 'b', OVERFLOW_LABEL, 'a']);
  });

  it('does not admit a value when told not to (rejected calls naming unknown datasets)', () => {
    const label = new BoundedLabel(5);
    expect(label.value('unknown', false)).toBe(OVERFLOW_LABEL);
    expect(label.value('known')).toBe('known');
    expect(label.value('known', false)).toBe('known');
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const TOKEN = 'scrape-token-0123456789';
  let guarded: TestGateway;
  beforeAll(async () => {
    guarded = await startTestGateway({ METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await guarded?.stop();
  });

  it('answers 401 without the bearer token, or with another, and the exposition with it', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789', TOKEN, `Basic ${TOKEN}`]) {
      const request = guarded.http.get('/metrics');
      if (authorization) request.set('authorization', authorization);
      const response = await request;
      expect({ authorization, status: response.status, challenge: response.headers['www-authenticate'] }).toEqual({ authorization, status: 401, challenge: 'Bearer realm="metrics"' });
      expect(response.text).not.toContain('gateway_http_requests_total');
    }
    const scraped = await guarded.http.get('/metrics').set('authorization', `Bearer ${TOKEN}`);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('# TYPE gateway_http_requests_total counter');
  });
});
