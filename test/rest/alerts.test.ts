// Alerting over the REST compatibility layer (contract 4.6, reference §6-§7): silences, metric
// aliases, notification channels and test messages under /alerts/v1, which take no request
// envelope. Mirrors test/graphql/alerts.test.ts rule by rule. The managers are local HTTP servers
// answering like Alertmanager's and Grafana's APIs (test/platform/alertmanager.test.ts runs the real
// Alertmanager), e-mail goes to a real SMTP conversation with a local sink, webhooks to a local
// HTTP receiver. Tests share one database: every test uses ids and names of its own.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { UUID_PATTERN } from '../support/api.js';
import { GRAFANA_TOKEN, header, startAlertingFixtures, type AlertingFixtures, type RecordedRequest } from '../support/alerting.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
let fx: AlertingFixtures;
beforeAll(async () => {
  fx = await startAlertingFixtures();
  gw = await startTestGateway(fx.env);
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});
afterEach(() => {
  fx.alertmanager.reset();
  fx.grafana.reset();
  fx.webhook.reset();
  fx.smtp.refuse.clear();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const RESPONSE_CODE: Record<number, string> = { 400: 'BAD_REQUEST', 404: 'NOT_FOUND', 409: 'CONFLICT', 502: 'FAILED' };

function hoursFromNow(hours: number): string {
  return new Date(Date.now() + hours * 3_600_000).toISOString();
}

function post(path: string, body: unknown): Promise<Response> {
  return gw.http.post(path).send(body as object);
}

function silenceBody(overrides: Record<string, unknown> = {}) {
  return { startDate: hoursFromNow(0), endDate: hoursFromNow(2), alertId: randomUUID(), manager: 'embedded', ...overrides };
}

function aliasBody(overrides: Record<string, unknown> = {}) {
  return { alias: `alias ${randomUUID()}`, component: 'Processing', metric: 'sum(rate(flink_failed_events_total{dataset="d1"}[5m]))', ...overrides };
}

function emailChannel(overrides: Record<string, unknown> = {}) {
  return { manager: 'embedded', name: `mail ${randomUUID()}`, type: 'email', config: { recipientAddresses: 'ops@example.com;oncall@example.com', subject: 'Gateway alert' }, ...overrides };
}

function slackChannel(overrides: Record<string, unknown> = {}) {
  return { manager: 'embedded', name: `slack ${randomUUID()}`, type: 'slack', config: { webhookUrl: `${fx.webhook.url}/hooks/T000/B000` }, ...overrides };
}

/** A success envelope with this api id; returns its result. */
function expectOk(response: Response, apiId: string): any {
  expect({ status: response.status, id: response.body.id, responseCode: response.body.responseCode, params: response.body.params?.status }).toEqual({
    status: 200,
    id: apiId,
    responseCode: 'OK',
    params: 'SUCCESS',
  });
  return response.body.result;
}

/** A failure envelope with this status, code, kind and a message matching `message`. */
function expectFailure(response: Response, status: number, code: string, message: RegExp): void {
  expect({ status: response.status, code: response.body.error?.code, responseCode: response.body.responseCode }).toEqual({ status, code, responseCode: RESPONSE_CODE[status] });
  expect(response.body.params?.status).toBe('FAILED');
  expect(response.body.error.trace).toBe('');
  expect(response.body.result).toEqual({});
  expect(response.body.error.message).toMatch(message);
}

async function rows(sql: string, values: unknown[] = []): Promise<any[]> {
  return (await gw.sql(sql, values)).rows;
}

const silencesOf = (alertId: string) => rows('SELECT * FROM alert_silences WHERE alert_id::text = $1', [alertId]);
const aliasesNamed = (alias: string) => rows('SELECT * FROM metric_aliases WHERE alias = $1', [alias]);
const channelsNamed = (name: string) => rows('SELECT * FROM notification_channels WHERE name = $1', [name]);

function calls(recorder: { requests: RecordedRequest[] }, method: string, pathPart: string): RecordedRequest[] {
  return recorder.requests.filter((request) => request.method === method && request.path.includes(pathPart));
}

async function createSilenceOk(body: Record<string, unknown>): Promise<string> {
  return expectOk(await post('/alerts/v1/silence/create', body), 'api.alert.silence.create').id;
}

async function createAliasOk(body: Record<string, unknown>): Promise<string> {
  return expectOk(await post('/alerts/v1/metric/alias/create', body), 'api.metric.add').id;
}

async function createChannelOk(body: Record<string, unknown>): Promise<string> {
  return expectOk(await post('/alerts/v1/notifications/create', body), 'api.alert.notification.create').id;
}

// ---------------------------------------------------------------------------------------------

describe('POST /alerts/v1/silence/create', () => {
  it('silences an alert at the embedded manager with the contract body, answers {id} and stores the silence', async () => {
    const body = silenceBody();
    const result = expectOk(await post('/alerts/v1/silence/create', body), 'api.alert.silence.create');
    expect(Object.keys(result)).toEqual(['id']);
    expect(result.id).toMatch(UUID_PATTERN);
    const [stored] = await silencesOf(body.alertId);
    expect(stored).toMatchObject({ id: result.id, manager: 'embedded', manager_silence_id: null, created_by: 'SYSTEM', comment: `Silence for alert: ${body.alertId}` });
    expect(stored.start_time.toISOString()).toBe(body.startDate);
    expect(stored.end_time.toISOString()).toBe(body.endDate);
  });

  it('creates the silence at Alertmanager (matcher alertId, window, creator, comment) and keeps its silence id', async () => {
    const body = silenceBody({ manager: 'alertmanager', comment: 'maintenance window' });
    const id = await createSilenceOk(body);
    const [sent] = calls(fx.alertmanager, 'POST', '/api/v2/silences').filter((request) => request.body.matchers[0].value === body.alertId);
    expect(sent!.body).toEqual({
      matchers: [{ name: 'alertId', value: body.alertId, isRegex: false, isEqual: true }],
      startsAt: body.startDate,
      endsAt: body.endDate,
      createdBy: 'SYSTEM',
      comment: 'maintenance window',
    });
    const [stored] = await silencesOf(body.alertId);
    expect(stored.id).toBe(id);
    expect(stored.manager).toBe('alertmanager');
    expect(stored.manager_silence_id).toMatch(UUID_PATTERN);
  });

  it('creates the silence in Grafana with its token', async () => {
    const body = silenceBody({ manager: 'grafana' });
    await createSilenceOk(body);
    const [sent] = calls(fx.grafana, 'POST', '/api/alertmanager/grafana/api/v2/silences').filter((request) => request.body.matchers[0].value === body.alertId);
    expect(sent!.headers.authorization).toBe(`Bearer ${GRAFANA_TOKEN}`);
    expect((await silencesOf(body.alertId))[0].manager).toBe('grafana');
  });

  it('replaces the silence of an alert silenced again: one record, and the manager is asked to replace its silence', async () => {
    const first = silenceBody({ manager: 'alertmanager' });
    await createSilenceOk(first);
    const [before] = await silencesOf(first.alertId);
    const secondId = await createSilenceOk({ ...first, endDate: hoursFromNow(5) });
    const stored = await silencesOf(first.alertId);
    expect(stored.map((row) => row.id)).toEqual([secondId]);
    const replacing = calls(fx.alertmanager, 'POST', '/api/v2/silences').filter((request) => request.body.matchers[0].value === first.alertId);
    expect(replacing).toHaveLength(2);
    expect(replacing[1]!.body.id).toBe(before.manager_silence_id);
  });

  it('ends the old silence at its manager when the alert is silenced again at another one', async () => {
    const first = silenceBody({ manager: 'alertmanager' });
    await createSilenceOk(first);
    const [before] = await silencesOf(first.alertId);
    await createSilenceOk({ ...first, manager: 'grafana' });
    expect(calls(fx.alertmanager, 'DELETE', `/api/v2/silence/${before.manager_silence_id}`)).toHaveLength(1);
    expect((await silencesOf(first.alertId)).map((row) => row.manager)).toEqual(['grafana']);
  });

  it.each([
    ['alertId is missing', { alertId: undefined }, /#required must have required property 'alertId'/],
    ['alertId is not a UUID', { alertId: 'alert-1' }, /#properties\/alertId\/format must match format "uuid"/],
    ['startDate is not an ISO 8601 date-time', { startDate: '22/11/2026' }, /#properties\/startDate\/format must match format "date-time"/],
    ['endDate is missing', { endDate: undefined }, /#required must have required property 'endDate'/],
    ['manager is not one the gateway knows', { manager: 'prometheus' }, /#properties\/manager\/enum .*\(embedded, alertmanager, grafana\)/],
    ['the body has a field the contract does not', { severity: 'high' }, /#additionalProperties must NOT have additional properties: 'severity'/],
    ['endDate is before startDate', { startDate: hoursFromNow(3), endDate: hoursFromNow(1) }, /endDate .* must be after startDate/],
    ['endDate is in the past', { startDate: hoursFromNow(-5), endDate: hoursFromNow(-1) }, /endDate .* is in the past/],
    ['the silence lasts more than 366 days', { endDate: hoursFromNow(24 * 400) }, /at most 366 days/],
  ])('refuses a body where %s with 400 SILENCE_INVALID_INPUT naming the problem, and stores nothing', async (_, overrides, message) => {
    const body = silenceBody(overrides);
    const requestsBefore = fx.alertmanager.requests.length;
    expectFailure(await post('/alerts/v1/silence/create', body), 400, 'SILENCE_INVALID_INPUT', message);
    if (typeof body.alertId === 'string') expect(await silencesOf(body.alertId)).toEqual([]);
    expect(fx.alertmanager.requests.length).toBe(requestsBefore);
  });

  it('refuses a body that is not JSON with 400 SILENCE_INVALID_INPUT', async () => {
    const response = await gw.http.post('/alerts/v1/silence/create').set('content-type', 'application/json').send('{"alertId": ');
    expectFailure(response, 400, 'SILENCE_INVALID_INPUT', /not valid JSON/);
  });

  it("answers 502 ALERT_MANAGER_FAILED with the manager's answer when it refuses, and stores nothing", async () => {
    fx.alertmanager.respond = () => ({ status: 400, body: "Failed to create silence: end time can't be in the past" });
    const body = silenceBody({ manager: 'alertmanager' });
    const response = await post('/alerts/v1/silence/create', body);
    expectFailure(response, 502, 'ALERT_MANAGER_FAILED', /Alertmanager at http:\/\/127\.0\.0\.1:\d+ answered HTTP 400: Failed to create silence: end time can't be in the past/);
    expect(await silencesOf(body.alertId)).toEqual([]);
  });

  it('answers 502 ALERT_MANAGER_FAILED when the manager cannot be reached, and stores nothing', async () => {
    fx.grafana.respond = () => 'hang-up';
    const body = silenceBody({ manager: 'grafana' });
    expectFailure(await post('/alerts/v1/silence/create', body), 502, 'ALERT_MANAGER_FAILED', /Grafana at .* could not be reached/);
    expect(await silencesOf(body.alertId)).toEqual([]);
  });

  it('keeps the previous silence when the manager refuses its replacement', async () => {
    const first = silenceBody({ manager: 'alertmanager' });
    const firstId = await createSilenceOk(first);
    fx.alertmanager.respond = () => ({ status: 500, body: 'storage failure' });
    expectFailure(await post('/alerts/v1/silence/create', { ...first, endDate: hoursFromNow(9) }), 502, 'ALERT_MANAGER_FAILED', /storage failure/);
    const stored = await silencesOf(first.alertId);
    expect(stored.map((row) => [row.id, row.end_time.toISOString()])).toEqual([[firstId, first.endDate]]);
  });
});

describe('POST /alerts/v1/silence/create on a gateway without Alertmanager or Grafana', () => {
  let bare: TestGateway;
  beforeAll(async () => {
    bare = await startTestGateway({ DATA_DIR: fx.dataDir });
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it('refuses a manager that is not configured with 400 SILENCE_INVALID_INPUT naming the setting, and stores nothing', async () => {
    const body = silenceBody({ manager: 'grafana' });
    const response = await bare.http.post('/alerts/v1/silence/create').send(body);
    expectFailure(response, 400, 'SILENCE_INVALID_INPUT', /manager "grafana" is not configured on this gateway \(configured: embedded\); set GRAFANA_URL/);
    expect((await bare.sql('SELECT count(*)::int AS n FROM alert_silences')).rows[0]!.n).toBe(0);
  });
});

describe('GET /alerts/v1/silence/get/:id and /silence/search', () => {
  it("reads a silence with the original's field names, its manager and its state", async () => {
    const body = silenceBody({ manager: 'alertmanager', startDate: hoursFromNow(1), endDate: hoursFromNow(2) });
    const id = await createSilenceOk(body);
    const silence = expectOk(await gw.http.get(`/alerts/v1/silence/get/${id}`), 'api.alert.silence.get');
    expect(silence).toMatchObject({ id, alert_id: body.alertId, manager: 'alertmanager', start_time: body.startDate, end_time: body.endDate, state: 'pending', created_by: 'SYSTEM' });
    expect(silence.manager_silence_id).toMatch(UUID_PATTERN);
    expect(Object.keys(silence).sort()).toEqual([
      'alert_id',
      'comment',
      'createdAt',
      'created_by',
      'end_time',
      'id',
      'manager',
      'manager_silence_id',
      'start_time',
      'state',
      'updatedAt',
      'updated_by',
    ]);
  });

  it('answers 404 SILENCE_NOT_FOUND for an unknown id, UUID or not', async () => {
    expectFailure(await gw.http.get(`/alerts/v1/silence/get/${randomUUID()}`), 404, 'SILENCE_NOT_FOUND', /does not exist/);
    expectFailure(await gw.http.get('/alerts/v1/silence/get/not-a-uuid'), 404, 'SILENCE_NOT_FOUND', /not-a-uuid does not exist/);
  });

  it('lists silences newest first as {transformedSilences, count}, filtered by alert and manager, a page at a time', async () => {
    const alertId = randomUUID();
    const id = await createSilenceOk(silenceBody({ alertId, manager: 'grafana' }));
    const byAlert = expectOk(await gw.http.get(`/alerts/v1/silence/search?alertId=${alertId}`), 'api.alert.silence.list');
    expect(byAlert).toEqual({ transformedSilences: [expect.objectContaining({ id, alert_id: alertId, state: 'active' })], count: 1 });

    const all = expectOk(await gw.http.get('/alerts/v1/silence/search'), 'api.alert.silence.list');
    const created = all.transformedSilences.map((silence: { createdAt: string }) => Date.parse(silence.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(all.count).toBe((await rows('SELECT id FROM alert_silences')).length);

    const grafanaOnly = expectOk(await gw.http.get('/alerts/v1/silence/search?manager=grafana'), 'api.alert.silence.list');
    expect(grafanaOnly.transformedSilences.every((silence: { manager: string }) => silence.manager === 'grafana')).toBe(true);

    const page = expectOk(await gw.http.get('/alerts/v1/silence/search?limit=1&offset=1'), 'api.alert.silence.list');
    expect(page.transformedSilences).toHaveLength(1);
    expect(page.transformedSilences[0].id).toBe(all.transformedSilences[1].id);
  });

  it('refuses a bad search filter with 400 SILENCE_INVALID_INPUT', async () => {
    expectFailure(await gw.http.get('/alerts/v1/silence/search?manager=prometheus'), 400, 'SILENCE_INVALID_INPUT', /manager\/enum/);
    expectFailure(await gw.http.get('/alerts/v1/silence/search?alertId=x'), 400, 'SILENCE_INVALID_INPUT', /alertId\/format/);
  });
});

describe('PATCH /alerts/v1/silence/update/:id', () => {
  it('moves the end at the manager first (replacing its silence), then in the record', async () => {
    const body = silenceBody({ manager: 'alertmanager' });
    const id = await createSilenceOk(body);
    const [before] = await silencesOf(body.alertId);
    const endDate = hoursFromNow(12);
    expect(expectOk(await gw.http.patch(`/alerts/v1/silence/update/${id}`).send({ endDate }), 'api.alert.silence.update')).toEqual({ id });
    const sent = calls(fx.alertmanager, 'POST', '/api/v2/silences')
      .filter((request) => request.body.matchers[0].value === body.alertId)
      .at(-1)!;
    expect(sent.body).toMatchObject({ id: before.manager_silence_id, startsAt: body.startDate, endsAt: endDate });
    expect((await silencesOf(body.alertId))[0].end_time.toISOString()).toBe(endDate);
  });

  it("accepts the original's startTime/endTime names", async () => {
    const body = silenceBody();
    const id = await createSilenceOk(body);
    const endTime = hoursFromNow(7);
    expectOk(await gw.http.patch(`/alerts/v1/silence/update/${id}`).send({ endTime }), 'api.alert.silence.update');
    expect((await silencesOf(body.alertId))[0].end_time.toISOString()).toBe(endTime);
  });

  it('refuses an end before the start or an empty body with 400 SILENCE_INVALID_INPUT, changing nothing', async () => {
    const body = silenceBody();
    const id = await createSilenceOk(body);
    expectFailure(await gw.http.patch(`/alerts/v1/silence/update/${id}`).send({ endDate: hoursFromNow(-1) }), 400, 'SILENCE_INVALID_INPUT', /must be after startDate/);
    expectFailure(await gw.http.patch(`/alerts/v1/silence/update/${id}`).send({}), 400, 'SILENCE_INVALID_INPUT', /#minProperties/);
    expect((await silencesOf(body.alertId))[0].end_time.toISOString()).toBe(body.endDate);
  });

  it('leaves the record as it was when the manager refuses the change', async () => {
    const body = silenceBody({ manager: 'grafana' });
    const id = await createSilenceOk(body);
    fx.grafana.respond = () => ({ status: 500, body: { message: 'alertmanager unavailable' } });
    expectFailure(await gw.http.patch(`/alerts/v1/silence/update/${id}`).send({ endDate: hoursFromNow(30) }), 502, 'ALERT_MANAGER_FAILED', /alertmanager unavailable/);
    expect((await silencesOf(body.alertId))[0].end_time.toISOString()).toBe(body.endDate);
  });

  it('answers 404 SILENCE_NOT_FOUND for an unknown silence', async () => {
    expectFailure(await gw.http.patch(`/alerts/v1/silence/update/${randomUUID()}`).send({ endDate: hoursFromNow(3) }), 404, 'SILENCE_NOT_FOUND', /does not exist/);
  });
});

describe('DELETE /alerts/v1/silence/delete/:id', () => {
  it('ends the silence at its manager, then deletes the record', async () => {
    const body = silenceBody({ manager: 'alertmanager' });
    const id = await createSilenceOk(body);
    const [before] = await silencesOf(body.alertId);
    expect(expectOk(await gw.http.delete(`/alerts/v1/silence/delete/${id}`), 'api.alert.silence.delete')).toEqual({ id });
    expect(calls(fx.alertmanager, 'DELETE', `/api/v2/silence/${before.manager_silence_id}`)).toHaveLength(1);
    expect(await silencesOf(body.alertId)).toEqual([]);
  });

  it('keeps the record when the manager cannot end the silence', async () => {
    const body = silenceBody({ manager: 'alertmanager' });
    const id = await createSilenceOk(body);
    fx.alertmanager.respond = () => ({ status: 503, body: 'shutting down' });
    expectFailure(await gw.http.delete(`/alerts/v1/silence/delete/${id}`), 502, 'ALERT_MANAGER_FAILED', /answered HTTP 503: shutting down/);
    expect(await silencesOf(body.alertId)).toHaveLength(1);
  });

  it('answers 404 SILENCE_NOT_FOUND for an unknown silence', async () => {
    expectFailure(await gw.http.delete(`/alerts/v1/silence/delete/${randomUUID()}`), 404, 'SILENCE_NOT_FOUND', /does not exist/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('POST /alerts/v1/metric/alias/create', () => {
  it('creates an alias with the contract body, answers {id} and stores it with the component in lower case', async () => {
    const body = aliasBody();
    const result = expectOk(await post('/alerts/v1/metric/alias/create', body), 'api.metric.add');
    expect(Object.keys(result)).toEqual(['id']);
    const [stored] = await aliasesNamed(body.alias);
    expect(stored).toMatchObject({ id: result.id, component: 'processing', metric: body.metric, sub_component: null, created_by: 'SYSTEM' });
  });

  it("keeps the original's optional subComponent and context", async () => {
    const body = aliasBody({ subComponent: 'd1', context: { datasetId: 'd1' } });
    await createAliasOk(body);
    expect((await aliasesNamed(body.alias))[0]).toMatchObject({ sub_component: 'd1', context: { datasetId: 'd1' } });
  });

  it.each([
    ['a metric that is not PromQL', { metric: 'sum(rate(x[5m])' }, /metric expression is not valid PromQL: expected "\)"/],
    ['a function given the wrong type', { metric: 'rate(http_requests_total)' }, /expected type range vector in call to function "rate", got instant vector/],
    ['an unknown function', { metric: 'summ(x)' }, /unknown function "summ"/],
    ['a metric that is a range vector', { metric: 'http_requests_total[5m]' }, /instant vector or a scalar, not a range vector/],
    ['no metric', { metric: undefined }, /#required must have required property 'metric'/],
    ['an empty alias', { alias: '' }, /#properties\/alias\/minLength/],
    ['a context that is not an object', { context: ['d1'] }, /#properties\/context\/type must be object/],
    // Found by the fuzz suite: the store's JSON recursion limit used to answer this with a 500.
    ['a context nested 200 levels deep', { context: Array.from({ length: 200 }).reduce<Record<string, unknown>>((inner) => ({ a: inner }), {}) }, /context is nested deeper than 32 levels/],
  ])('refuses %s with 400 METRIC_ALIAS_INVALID_INPUT, and stores nothing', async (_, overrides, message) => {
    const body = aliasBody(overrides);
    expectFailure(await post('/alerts/v1/metric/alias/create', body), 400, 'METRIC_ALIAS_INVALID_INPUT', message);
    expect(await aliasesNamed(body.alias ?? '')).toEqual([]);
  });

  it('answers 409 METRIC_ALIAS_ALREADY_EXISTS for an alias that is taken, leaving the first as it was', async () => {
    const body = aliasBody();
    await createAliasOk(body);
    expectFailure(await post('/alerts/v1/metric/alias/create', { ...body, metric: 'up' }), 409, 'METRIC_ALIAS_ALREADY_EXISTS', /already exists/);
    expect((await aliasesNamed(body.alias)).map((row) => row.metric)).toEqual([body.metric]);
  });
});

describe('GET /alerts/v1/metric/alias/get/:id and POST /metric/alias/search', () => {
  it('reads an alias', async () => {
    const body = aliasBody({ subComponent: 'd2' });
    const id = await createAliasOk(body);
    const alias = expectOk(await gw.http.get(`/alerts/v1/metric/alias/get/${id}`), 'api.metric.get');
    expect(alias).toMatchObject({ id, alias: body.alias, component: 'processing', subComponent: 'd2', metric: body.metric, context: null, created_by: 'SYSTEM' });
  });

  it('answers 404 METRIC_ALIAS_NOT_FOUND for an unknown alias', async () => {
    expectFailure(await gw.http.get(`/alerts/v1/metric/alias/get/${randomUUID()}`), 404, 'METRIC_ALIAS_NOT_FOUND', /does not exist/);
  });

  it("lists aliases as {metrics, count}, filtered by component and sub-component, in the original's request wrapper or bare", async () => {
    const subComponent = `ds-${randomUUID()}`;
    const id = await createAliasOk(aliasBody({ component: 'Storage', subComponent }));
    await createAliasOk(aliasBody({ component: 'query', subComponent }));
    const wrapped = expectOk(await post('/alerts/v1/metric/alias/search', { request: { filters: { component: 'STORAGE', subComponent } } }), 'api.metric.list');
    expect(wrapped).toEqual({ metrics: [expect.objectContaining({ id, component: 'storage' })], count: 1 });
    const bare = expectOk(await post('/alerts/v1/metric/alias/search', { filters: { subComponent }, limit: 1 }), 'api.metric.list');
    expect(bare.metrics).toHaveLength(1);
    expect(bare.count).toBe(2);
  });

  it('refuses a filter the search does not know with 400 METRIC_ALIAS_INVALID_INPUT (no raw filters reach the database)', async () => {
    expectFailure(await post('/alerts/v1/metric/alias/search', { request: { filters: { metric: { $like: '%' } } } }), 400, 'METRIC_ALIAS_INVALID_INPUT', /additional properties: 'metric'/);
  });
});

describe('PATCH /alerts/v1/metric/alias/update/:id and DELETE /metric/alias/delete/:id', () => {
  it('changes the metric and component of an alias', async () => {
    const body = aliasBody();
    const id = await createAliasOk(body);
    expect(expectOk(await gw.http.patch(`/alerts/v1/metric/alias/update/${id}`).send({ metric: 'avg_over_time(up[10m]) < 1', component: 'API' }), 'api.metric.update')).toEqual({ id });
    expect((await aliasesNamed(body.alias))[0]).toMatchObject({ metric: 'avg_over_time(up[10m]) < 1', component: 'api' });
  });

  it('refuses a metric that is not PromQL, or nothing to change, with 400 METRIC_ALIAS_INVALID_INPUT, changing nothing', async () => {
    const body = aliasBody();
    const id = await createAliasOk(body);
    expectFailure(await gw.http.patch(`/alerts/v1/metric/alias/update/${id}`).send({ metric: 'up{job=}' }), 400, 'METRIC_ALIAS_INVALID_INPUT', /quoted label value/);
    expectFailure(await gw.http.patch(`/alerts/v1/metric/alias/update/${id}`).send({}), 400, 'METRIC_ALIAS_INVALID_INPUT', /#minProperties/);
    expect((await aliasesNamed(body.alias))[0].metric).toBe(body.metric);
  });

  it('answers 409 METRIC_ALIAS_ALREADY_EXISTS when renamed to a taken alias', async () => {
    const taken = aliasBody();
    await createAliasOk(taken);
    const id = await createAliasOk(aliasBody());
    expectFailure(await gw.http.patch(`/alerts/v1/metric/alias/update/${id}`).send({ alias: taken.alias }), 409, 'METRIC_ALIAS_ALREADY_EXISTS', /already exists/);
  });

  it('deletes an alias, and answers 404 METRIC_ALIAS_NOT_FOUND for one that does not exist', async () => {
    const body = aliasBody();
    const id = await createAliasOk(body);
    expect(expectOk(await gw.http.delete(`/alerts/v1/metric/alias/delete/${id}`), 'api.metric.remove')).toEqual({ id });
    expect(await aliasesNamed(body.alias)).toEqual([]);
    expectFailure(await gw.http.delete(`/alerts/v1/metric/alias/delete/${id}`), 404, 'METRIC_ALIAS_NOT_FOUND', /does not exist/);
    expectFailure(await gw.http.patch(`/alerts/v1/metric/alias/update/${id}`).send({ metric: 'up' }), 404, 'METRIC_ALIAS_NOT_FOUND', /does not exist/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('POST /alerts/v1/notifications/create', () => {
  it('creates an email channel with the contract body, answers {id} and stores it', async () => {
    const body = emailChannel();
    const result = expectOk(await post('/alerts/v1/notifications/create', body), 'api.alert.notification.create');
    expect(Object.keys(result)).toEqual(['id']);
    const [stored] = await channelsNamed(body.name);
    expect(stored).toMatchObject({ id: result.id, manager: 'embedded', type: 'email', config: body.config, created_by: 'SYSTEM' });
  });

  it('creates a Grafana channel as a contact point whose uid is the channel id, with the token and provenance off', async () => {
    const body = slackChannel({ manager: 'grafana' });
    const id = await createChannelOk(body);
    const [sent] = calls(fx.grafana, 'POST', '/api/v1/provisioning/contact-points').filter((request) => request.body.uid === id);
    expect(sent!.body).toEqual({ uid: id, name: body.name, type: 'slack', settings: { url: body.config.webhookUrl }, disableResolveMessage: false });
    expect(sent!.headers.authorization).toBe(`Bearer ${GRAFANA_TOKEN}`);
    expect(sent!.headers['x-disable-provenance']).toBe('true');
    expect((await channelsNamed(body.name))[0].manager).toBe('grafana');
  });

  it('sends Grafana an e-mail contact point with the addresses split and joined as Grafana wants them', async () => {
    const body = emailChannel({ manager: 'grafana', config: { recipientAddresses: ' ops@example.com ; dev@example.com; ', subject: 'Alert' } });
    const id = await createChannelOk(body);
    const [sent] = calls(fx.grafana, 'POST', '/api/v1/provisioning/contact-points').filter((request) => request.body.uid === id);
    expect(sent!.body.settings).toEqual({ addresses: 'ops@example.com;dev@example.com', singleEmail: false, subject: 'Alert' });
  });

  it.each([
    ['a type the gateway cannot deliver', { type: 'sms' }, /#properties\/type\/enum .*\(email, slack, teams\)/],
    ['an email channel without recipients', { config: { subject: 'x' } }, /config\.recipientAddresses is required for email channels/],
    ['a recipient that is not an e-mail address', { config: { recipientAddresses: 'ops@example.com;not-an-address' } }, /"not-an-address" is not a valid e-mail address/],
    ['a webhook URL on an email channel', { config: { recipientAddresses: 'ops@example.com', webhookUrl: 'https://hooks.slack.com/x' } }, /webhookUrl does not apply to email channels/],
    ['a config field nobody reads', { config: { recipientAddresses: 'ops@example.com', labels: {} } }, /#properties\/config\/additionalProperties must NOT have additional properties: 'labels'/],
    ['no name', { name: undefined }, /#required must have required property 'name'/],
    ['Alertmanager as the manager (it has no API for receivers)', { manager: 'alertmanager' }, /manager "alertmanager" cannot hold notification channels/],
  ])('refuses %s with 400 NOTIFICATION_CHANNEL_INVALID_INPUT, and stores nothing', async (_, overrides, message) => {
    const body = emailChannel(overrides);
    expectFailure(await post('/alerts/v1/notifications/create', body), 400, 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
    expect(await channelsNamed(body.name ?? '')).toEqual([]);
  });

  it.each([
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['loopback on a port that is not listed', 'http://127.0.0.1:9/hook'],
    ['localhost, which is not listed', 'http://localhost/hook'],
    ['a host that only ends like an allowed one', 'https://evilhooks.slack.com.attacker.example/x'],
    ['a URL with credentials', `http://user:secret@127.0.0.1:${0}/hook`],
  ])('refuses a webhook URL naming %s (SSRF guard) with 400, and stores nothing', async (_, url) => {
    const body = slackChannel({ config: { webhookUrl: url.replace(':0/', `:${fx.webhook.port}/`) } });
    expectFailure(
      await post('/alerts/v1/notifications/create', body),
      400,
      'NOTIFICATION_CHANNEL_INVALID_INPUT',
      /config\.webhookUrl (names host .* which is not in WEBHOOK_ALLOWED_HOSTS|must not carry credentials)/,
    );
    expect(await channelsNamed(body.name)).toEqual([]);
  });

  it('accepts a webhook on an allowed wildcard domain', async () => {
    const body = slackChannel({ type: 'teams', config: { webhookUrl: 'https://contoso.webhook.office.com/webhookb2/abc' } });
    await createChannelOk(body);
    expect((await channelsNamed(body.name))[0].config).toEqual({ webhookUrl: 'https://contoso.webhook.office.com/webhookb2/abc' });
  });

  it('answers 409 NOTIFICATION_CHANNEL_ALREADY_EXISTS for a name that is taken', async () => {
    const body = emailChannel();
    await createChannelOk(body);
    expectFailure(await post('/alerts/v1/notifications/create', { ...body, type: 'slack', config: slackChannel().config }), 409, 'NOTIFICATION_CHANNEL_ALREADY_EXISTS', /already exists/);
    expect((await channelsNamed(body.name)).map((row) => row.type)).toEqual(['email']);
  });

  it('answers 502 ALERT_MANAGER_FAILED when Grafana refuses the contact point, and stores nothing', async () => {
    fx.grafana.respond = () => ({ status: 400, body: { message: 'invalid settings', traceID: '' } });
    const body = emailChannel({ manager: 'grafana' });
    expectFailure(await post('/alerts/v1/notifications/create', body), 502, 'ALERT_MANAGER_FAILED', /Grafana at .* answered HTTP 400: .*invalid settings/);
    expect(await channelsNamed(body.name)).toEqual([]);
  });
});

describe('GET /alerts/v1/notifications/get/:id and POST /notifications/search', () => {
  it('reads a channel with its config', async () => {
    const body = emailChannel();
    const id = await createChannelOk(body);
    const channel = expectOk(await gw.http.get(`/alerts/v1/notifications/get/${id}`), 'api.alert.notification.get');
    expect(channel).toMatchObject({ id, manager: 'embedded', name: body.name, type: 'email', config: body.config, created_by: 'SYSTEM' });
  });

  it('answers 404 NOTIFICATION_CHANNEL_NOT_FOUND for an unknown channel', async () => {
    expectFailure(await gw.http.get(`/alerts/v1/notifications/get/${randomUUID()}`), 404, 'NOTIFICATION_CHANNEL_NOT_FOUND', /does not exist/);
  });

  it('lists channels as {notifications, count}, filtered by manager and type', async () => {
    const id = await createChannelOk(slackChannel({ manager: 'grafana', type: 'teams' }));
    const found = expectOk(await post('/alerts/v1/notifications/search', { request: { filters: { manager: 'grafana', type: 'teams' } } }), 'api.alert.notification.list');
    expect(found.notifications.map((channel: { id: string }) => channel.id)).toContain(id);
    expect(found.notifications.every((channel: { manager: string; type: string }) => channel.manager === 'grafana' && channel.type === 'teams')).toBe(true);
    expect(found.count).toBe(found.notifications.length);
  });
});

describe('PATCH /alerts/v1/notifications/update/:id and DELETE /notifications/delete/:id', () => {
  it('changes a Grafana channel at Grafana first (PUT of its contact point), then in the record', async () => {
    const body = emailChannel({ manager: 'grafana' });
    const id = await createChannelOk(body);
    const config = { recipientAddresses: 'new@example.com' };
    expect(expectOk(await gw.http.patch(`/alerts/v1/notifications/update/${id}`).send({ config }), 'api.alert.notification.update')).toEqual({ id });
    const [sent] = calls(fx.grafana, 'PUT', `/api/v1/provisioning/contact-points/${id}`);
    expect(sent!.body.settings).toEqual({ addresses: 'new@example.com', singleEmail: true });
    expect((await channelsNamed(body.name))[0].config).toEqual(config);
  });

  it('refuses a new type without a config for it, changing nothing', async () => {
    const body = emailChannel();
    const id = await createChannelOk(body);
    expectFailure(
      await gw.http.patch(`/alerts/v1/notifications/update/${id}`).send({ type: 'slack' }),
      400,
      'NOTIFICATION_CHANNEL_INVALID_INPUT',
      /recipientAddresses does not apply to slack channels/,
    );
    expect((await channelsNamed(body.name))[0].type).toBe('email');
  });

  it('leaves the record as it was when Grafana refuses the change', async () => {
    const body = emailChannel({ manager: 'grafana' });
    const id = await createChannelOk(body);
    fx.grafana.respond = () => ({ status: 500, body: 'database is locked' });
    expectFailure(await gw.http.patch(`/alerts/v1/notifications/update/${id}`).send({ name: `${body.name} renamed` }), 502, 'ALERT_MANAGER_FAILED', /database is locked/);
    expect(await channelsNamed(body.name)).toHaveLength(1);
  });

  it('removes a Grafana channel from Grafana, then deletes the record', async () => {
    const body = slackChannel({ manager: 'grafana' });
    const id = await createChannelOk(body);
    expect(expectOk(await gw.http.delete(`/alerts/v1/notifications/delete/${id}`), 'api.alert.notification.delete')).toEqual({ id });
    expect(calls(fx.grafana, 'DELETE', `/api/v1/provisioning/contact-points/${id}`)).toHaveLength(1);
    expect(await channelsNamed(body.name)).toEqual([]);
    expectFailure(await gw.http.delete(`/alerts/v1/notifications/delete/${id}`), 404, 'NOTIFICATION_CHANNEL_NOT_FOUND', /does not exist/);
  });

  it('keeps the record when Grafana cannot remove the contact point', async () => {
    const body = slackChannel({ manager: 'grafana' });
    const id = await createChannelOk(body);
    fx.grafana.respond = () => ({ status: 409, body: { message: 'contact point is in use by a notification policy' } });
    expectFailure(await gw.http.delete(`/alerts/v1/notifications/delete/${id}`), 502, 'ALERT_MANAGER_FAILED', /in use by a notification policy/);
    expect(await channelsNamed(body.name)).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('POST /alerts/v1/notifications/test', () => {
  it('sends the contract\'s test body as an e-mail over SMTP to every address and answers {status: "Notification Sent"} with the server\'s reply', async () => {
    const received = fx.smtp.messages.length;
    const body = {
      message: 'Disk almost full on node-3',
      payload: { error: { selectChannel: false, configureChannel: false }, manager: 'embedded', name: 'Ops mail', type: 'email', config: { recipientAddresses: 'ops@example.com;oncall@example.com' } },
    };
    const result = expectOk(await post('/alerts/v1/notifications/test', body), 'api.alert.notification.test');
    expect(result).toEqual({ status: 'Notification Sent', transport: 'smtp', response: expect.stringMatching(/^250 OK: message queued as /) });
    const mail = fx.smtp.messages[received]!;
    expect(mail.to).toEqual(['ops@example.com', 'oncall@example.com']);
    expect(mail.from).toBe('alerts@localhost');
    expect(header(mail, 'Subject')).toBe('Test notification');
    expect(mail.data).toContain('Disk almost full on node-3');
  });

  it('tests a stored channel given by payload.id, with its subject, and answers its id', async () => {
    const id = await createChannelOk(emailChannel({ config: { recipientAddresses: 'stored@example.com', subject: 'Stored subject' } }));
    const received = fx.smtp.messages.length;
    const result = expectOk(await post('/alerts/v1/notifications/test', { message: 'hello', payload: { id } }), 'api.alert.notification.test');
    expect(result).toMatchObject({ status: 'Notification Sent', id, transport: 'smtp' });
    expect(fx.smtp.messages[received]!.to).toEqual(['stored@example.com']);
    expect(header(fx.smtp.messages[received]!, 'Subject')).toBe('Stored subject');
  });

  it("posts {text} to a Slack webhook and reports the webhook's answer", async () => {
    const body = { message: 'Ingestion lag above 5 minutes', payload: slackChannel() };
    const result = expectOk(await post('/alerts/v1/notifications/test', body), 'api.alert.notification.test');
    expect(result).toEqual({ status: 'Notification Sent', transport: 'webhook', response: 'HTTP 200: ok' });
    const [sent] = fx.webhook.requests.filter((request) => request.body?.text === 'Ingestion lag above 5 minutes');
    expect(sent!.path).toBe('/hooks/T000/B000');
    expect(sent!.headers['content-type']).toBe('application/json');
  });

  it("answers 502 NOTIFICATION_FAILED with the webhook's answer when it refuses the message", async () => {
    fx.webhook.respond = () => ({ status: 404, body: 'no_service' });
    expectFailure(await post('/alerts/v1/notifications/test', { message: 'x', payload: slackChannel() }), 502, 'NOTIFICATION_FAILED', /the webhook at 127\.0\.0\.1:\d+ answered HTTP 404: no_service/);
  });

  it("does not follow a webhook's redirect (it could lead to a host that is not allowed)", async () => {
    const target = `/redirected-${randomUUID()}`;
    fx.webhook.respond = (request) => (request.path === target ? { status: 200, body: 'ok' } : { status: 302, headers: { location: `${fx.webhook.url}${target}` } });
    expectFailure(await post('/alerts/v1/notifications/test', { message: 'x', payload: slackChannel() }), 502, 'NOTIFICATION_FAILED', /redirect \(HTTP 302\), which the gateway does not follow/);
    expect(fx.webhook.requests.filter((request) => request.path === target)).toEqual([]);
  });

  it('answers 502 NOTIFICATION_FAILED naming the address the SMTP server refused', async () => {
    fx.smtp.refuse.add('gone@example.com');
    const body = { message: 'x', payload: { manager: 'embedded', name: 'Mail', type: 'email', config: { recipientAddresses: 'ops@example.com;gone@example.com' } } };
    expectFailure(await post('/alerts/v1/notifications/test', body), 502, 'NOTIFICATION_FAILED', /SMTP at smtp:\/\/127\.0\.0\.1:\d+\/? refused gone@example\.com/);
  });

  it("tests a Grafana channel through Grafana's receiver test and reports its result", async () => {
    const id = await createChannelOk(emailChannel({ manager: 'grafana' }));
    const result = expectOk(await post('/alerts/v1/notifications/test', { message: 'via grafana', payload: { id } }), 'api.alert.notification.test');
    expect(result).toMatchObject({ status: 'Notification Sent', id, transport: 'grafana', response: expect.stringMatching(/^HTTP 200: .* ok$/) });
    const [sent] = calls(fx.grafana, 'POST', '/api/alertmanager/grafana/config/api/v1/receivers/test').filter((request) => request.body.receivers[0].grafana_managed_receiver_configs[0].uid === id);
    expect(sent!.body.alert.annotations.description).toBe('via grafana');
  });

  it("answers 502 NOTIFICATION_FAILED with Grafana's reason when its receiver test fails", async () => {
    const id = await createChannelOk(emailChannel({ manager: 'grafana' }));
    fx.grafana.respond = () => ({ status: 207, body: { receivers: [{ name: 'x', grafana_managed_receiver_configs: [{ name: 'x', uid: id, status: 'failed', error: 'SMTP not configured' }] }] } });
    expectFailure(await post('/alerts/v1/notifications/test', { payload: { id } }), 502, 'NOTIFICATION_FAILED', /could not deliver the test message: SMTP not configured/);
  });

  it('refuses a webhook that is not allowed with 400 before calling anything', async () => {
    const before = fx.webhook.requests.length;
    const payload = slackChannel({ config: { webhookUrl: 'http://10.0.0.5/internal-admin' } });
    expectFailure(await post('/alerts/v1/notifications/test', { message: 'x', payload }), 400, 'NOTIFICATION_CHANNEL_INVALID_INPUT', /names host 10\.0\.0\.5/);
    expect(fx.webhook.requests.length).toBe(before);
  });

  it.each([
    ['no payload', { message: 'x' }, /#required must have required property 'payload'/],
    [
      'a payload that is neither a stored channel nor a whole channel',
      { message: 'x', payload: { manager: 'embedded', type: 'email' } },
      /#properties\/payload\/else\/required must have required property 'name'/,
    ],
    ['an empty message', { message: '', payload: { id: randomUUID() } }, /#properties\/message\/minLength/],
    ['a bad address', { payload: { manager: 'embedded', name: 'n', type: 'email', config: { recipientAddresses: 'a@b@c' } } }, /"a@b@c" is not a valid e-mail address/],
  ])('refuses %s with 400 NOTIFICATION_CHANNEL_INVALID_INPUT, sending nothing', async (_, body, message) => {
    const sent = fx.smtp.messages.length;
    expectFailure(await post('/alerts/v1/notifications/test', body), 400, 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
    expect(fx.smtp.messages.length).toBe(sent);
  });

  it('answers 404 NOTIFICATION_CHANNEL_NOT_FOUND for a stored channel that does not exist', async () => {
    expectFailure(await post('/alerts/v1/notifications/test', { payload: { id: randomUUID() } }), 404, 'NOTIFICATION_CHANNEL_NOT_FOUND', /does not exist/);
  });
});
