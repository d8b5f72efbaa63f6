// Alerting over GraphQL (POST /graphql). Mirrors test/rest/alerts.test.ts rule by rule: where REST
// refuses a body with its JSON schema, GraphQL refuses the same input with its types, and every
// business rule answers the same contract code on both. The managers are local HTTP servers
// answering like Alertmanager's and Grafana's APIs, e-mail goes to a local SMTP sink, webhooks to a
// local HTTP receiver. Tests share one database: every test uses ids and names of its own.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, UUID_PATTERN, type GraphQLResponse } from '../support/api.js';
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

const RESPONSE_CODE: Record<string, string> = {
  SILENCE_INVALID_INPUT: 'BAD_REQUEST',
  SILENCE_NOT_FOUND: 'NOT_FOUND',
  METRIC_ALIAS_INVALID_INPUT: 'BAD_REQUEST',
  METRIC_ALIAS_ALREADY_EXISTS: 'CONFLICT',
  METRIC_ALIAS_NOT_FOUND: 'NOT_FOUND',
  NOTIFICATION_CHANNEL_INVALID_INPUT: 'BAD_REQUEST',
  NOTIFICATION_CHANNEL_ALREADY_EXISTS: 'CONFLICT',
  NOTIFICATION_CHANNEL_NOT_FOUND: 'NOT_FOUND',
  ALERT_MANAGER_FAILED: 'FAILED',
  NOTIFICATION_FAILED: 'FAILED',
};
const SILENCE = 'id alertId manager managerSilenceId startDate endDate state comment createdBy updatedBy createdAt updatedAt';
const ALIAS = 'id alias component subComponent metric context createdBy updatedBy createdAt updatedAt';
const CHANNEL = 'id manager name type config { recipientAddresses recipients subject message webhookUrl } createdBy updatedBy createdAt updatedAt';

function hoursFromNow(hours: number): string {
  return new Date(Date.now() + hours * 3_600_000).toISOString();
}

function silenceInput(overrides: Record<string, unknown> = {}) {
  return { startDate: hoursFromNow(0), endDate: hoursFromNow(2), alertId: randomUUID(), manager: 'EMBEDDED', ...overrides };
}

function aliasInput(overrides: Record<string, unknown> = {}) {
  return { alias: `alias ${randomUUID()}`, component: 'Processing', metric: 'sum(rate(flink_failed_events_total{dataset="d1"}[5m]))', ...overrides };
}

function emailChannel(overrides: Record<string, unknown> = {}) {
  return { manager: 'EMBEDDED', name: `mail ${randomUUID()}`, type: 'EMAIL', config: { recipientAddresses: 'ops@example.com;oncall@example.com', subject: 'Gateway alert' }, ...overrides };
}

function slackChannel(overrides: Record<string, unknown> = {}) {
  return { manager: 'EMBEDDED', name: `slack ${randomUUID()}`, type: 'SLACK', config: { webhookUrl: `${fx.webhook.url}/hooks/T000/B000` }, ...overrides };
}

const createSilence = (input: unknown, target: TestGateway = gw) =>
  graphql(target, `mutation($input: CreateSilenceInput!) { createSilence(input: $input) { message silence { ${SILENCE} } } }`, { input });
const updateSilence = (id: string, input: unknown) =>
  graphql(gw, `mutation($id: ID!, $input: UpdateSilenceInput!) { updateSilence(id: $id, input: $input) { silence { ${SILENCE} } } }`, { id, input });
const deleteSilence = (id: string) =>
  graphql(
    gw,
    `
      mutation ($id: ID!) {
        deleteSilence(id: $id) {
          id
          message
        }
      }
    `,
    { id },
  );
const readSilence = (id: string) => graphql(gw, `query($id: ID!) { silence(id: $id) { ${SILENCE} } }`, { id });
const listSilences = (variables: Record<string, unknown>) =>
  graphql(
    gw,
    `query($filter: SilenceFilter, $first: Int, $after: String) { silences(filter: $filter, first: $first, after: $after) { totalCount nodes { ${SILENCE} } pageInfo { hasNextPage endCursor } } }`,
    variables,
  );

const createAlias = (input: unknown) => graphql(gw, `mutation($input: CreateMetricAliasInput!) { createMetricAlias(input: $input) { message metricAlias { ${ALIAS} } } }`, { input });
const updateAlias = (id: string, input: unknown) =>
  graphql(gw, `mutation($id: ID!, $input: UpdateMetricAliasInput!) { updateMetricAlias(id: $id, input: $input) { metricAlias { ${ALIAS} } } }`, { id, input });
const deleteAlias = (id: string) =>
  graphql(
    gw,
    `
      mutation ($id: ID!) {
        deleteMetricAlias(id: $id) {
          id
        }
      }
    `,
    { id },
  );
const readAlias = (id: string) => graphql(gw, `query($id: ID!) { metricAlias(id: $id) { ${ALIAS} } }`, { id });
const listAliases = (variables: Record<string, unknown>) =>
  graphql(gw, `query($filter: MetricAliasFilter, $first: Int) { metricAliases(filter: $filter, first: $first) { totalCount nodes { ${ALIAS} } } }`, variables);

const createChannel = (input: unknown) => graphql(gw, `mutation($input: CreateNotificationChannelInput!) { createNotificationChannel(input: $input) { message channel { ${CHANNEL} } } }`, { input });
const updateChannel = (id: string, input: unknown) =>
  graphql(gw, `mutation($id: ID!, $input: UpdateNotificationChannelInput!) { updateNotificationChannel(id: $id, input: $input) { channel { ${CHANNEL} } } }`, { id, input });
const deleteChannel = (id: string) =>
  graphql(
    gw,
    `
      mutation ($id: ID!) {
        deleteNotificationChannel(id: $id) {
          id
        }
      }
    `,
    { id },
  );
const readChannel = (id: string) => graphql(gw, `query($id: ID!) { notificationChannel(id: $id) { ${CHANNEL} } }`, { id });
const listChannels = (variables: Record<string, unknown>) =>
  graphql(gw, `query($filter: NotificationChannelFilter) { notificationChannels(filter: $filter) { totalCount nodes { ${CHANNEL} } } }`, variables);
const testChannel = (input: unknown) =>
  graphql(
    gw,
    `
      mutation ($input: TestNotificationChannelInput!) {
        testNotificationChannel(input: $input) {
          status
          transport
          response
          channelId
        }
      }
    `,
    { input },
  );

/** The data of a response that must have succeeded. */
function ok(response: GraphQLResponse): Record<string, any> {
  expect(response.errors).toBeUndefined();
  return response.data!;
}

/** A single error from our services: contract code, its kind, and a message matching `message`. */
function expectFailure(response: GraphQLResponse, code: string, message: RegExp): void {
  expect(response.status).toBe(200);
  expect(response.errors).toHaveLength(1);
  expect({ code: errorCode(response), responseCode: response.errors![0]!.extensions?.responseCode }).toEqual({ code, responseCode: RESPONSE_CODE[code] });
  expect(response.errors![0]!.message).toMatch(message);
}

/** GraphQL itself refused the request (type or validation level): no data, an error matching `message`. */
function expectRefusedByGraphQL(response: GraphQLResponse, message: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.data ?? null).toBeNull();
  expect(response.errors![0]!.message).toMatch(message);
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

async function createSilenceOk(input: Record<string, unknown>): Promise<string> {
  return ok(await createSilence(input)).createSilence.silence.id;
}

async function createAliasOk(input: Record<string, unknown>): Promise<string> {
  return ok(await createAlias(input)).createMetricAlias.metricAlias.id;
}

async function createChannelOk(input: Record<string, unknown>): Promise<string> {
  return ok(await createChannel(input)).createNotificationChannel.channel.id;
}

// ---------------------------------------------------------------------------------------------

describe('createSilence', () => {
  it('silences an alert at the embedded manager, answers the silence and stores it', async () => {
    const input = silenceInput();
    const created = ok(await createSilence(input)).createSilence;
    expect(created.message).toBe(`Alert ${input.alertId} is silenced`);
    expect(created.silence).toMatchObject({
      alertId: input.alertId,
      manager: 'EMBEDDED',
      managerSilenceId: null,
      startDate: input.startDate,
      endDate: input.endDate,
      state: 'ACTIVE',
      createdBy: 'SYSTEM',
    });
    expect(created.silence.id).toMatch(UUID_PATTERN);
    const [stored] = await silencesOf(input.alertId);
    expect(stored).toMatchObject({ id: created.silence.id, manager: 'embedded', comment: `Silence for alert: ${input.alertId}` });
  });

  it('creates the silence at Alertmanager (matcher alertId, window, creator, comment) and keeps its silence id', async () => {
    const input = silenceInput({ manager: 'ALERTMANAGER', comment: 'maintenance window' });
    const silence = ok(await createSilence(input)).createSilence.silence;
    const [sent] = calls(fx.alertmanager, 'POST', '/api/v2/silences').filter((request) => request.body.matchers[0].value === input.alertId);
    expect(sent!.body).toEqual({
      matchers: [{ name: 'alertId', value: input.alertId, isRegex: false, isEqual: true }],
      startsAt: input.startDate,
      endsAt: input.endDate,
      createdBy: 'SYSTEM',
      comment: 'maintenance window',
    });
    expect(silence.managerSilenceId).toMatch(UUID_PATTERN);
    expect((await silencesOf(input.alertId))[0].manager_silence_id).toBe(silence.managerSilenceId);
  });

  it('creates the silence in Grafana with its token', async () => {
    const input = silenceInput({ manager: 'GRAFANA' });
    await createSilenceOk(input);
    const [sent] = calls(fx.grafana, 'POST', '/api/alertmanager/grafana/api/v2/silences').filter((request) => request.body.matchers[0].value === input.alertId);
    expect(sent!.headers.authorization).toBe(`Bearer ${GRAFANA_TOKEN}`);
    expect((await silencesOf(input.alertId))[0].manager).toBe('grafana');
  });

  it('replaces the silence of an alert silenced again: one record, and the manager is asked to replace its silence', async () => {
    const first = silenceInput({ manager: 'ALERTMANAGER' });
    await createSilenceOk(first);
    const [before] = await silencesOf(first.alertId);
    const secondId = await createSilenceOk({ ...first, endDate: hoursFromNow(5) });
    expect((await silencesOf(first.alertId)).map((row) => row.id)).toEqual([secondId]);
    const replacing = calls(fx.alertmanager, 'POST', '/api/v2/silences').filter((request) => request.body.matchers[0].value === first.alertId);
    expect(replacing).toHaveLength(2);
    expect(replacing[1]!.body.id).toBe(before.manager_silence_id);
  });

  it('ends the old silence at its manager when the alert is silenced again at another one', async () => {
    const first = silenceInput({ manager: 'ALERTMANAGER' });
    await createSilenceOk(first);
    const [before] = await silencesOf(first.alertId);
    await createSilenceOk({ ...first, manager: 'GRAFANA' });
    expect(calls(fx.alertmanager, 'DELETE', `/api/v2/silence/${before.manager_silence_id}`)).toHaveLength(1);
    expect((await silencesOf(first.alertId)).map((row) => row.manager)).toEqual(['grafana']);
  });

  it.each([
    ['alertId is missing', { alertId: undefined }, /alertId/],
    ['startDate is not an ISO 8601 date-time', { startDate: '22/11/2026' }, /DateTime/],
    ['endDate is missing', { endDate: undefined }, /endDate/],
    ['manager is not one the gateway knows', { manager: 'PROMETHEUS' }, /AlertManagerKind/],
    ['the input has a field the schema does not', { severity: 'high' }, /severity/],
  ])('refuses an input where %s at the type level, and stores nothing', async (_, overrides, message) => {
    const input = silenceInput(overrides);
    const requestsBefore = fx.alertmanager.requests.length;
    expectRefusedByGraphQL(await createSilence(input), message);
    if (typeof input.alertId === 'string') expect(await silencesOf(input.alertId)).toEqual([]);
    expect(fx.alertmanager.requests.length).toBe(requestsBefore);
  });

  it.each([
    ['alertId is not a UUID', { alertId: 'alert-1' }, /alertId must be a UUID/],
    ['endDate is before startDate', { startDate: hoursFromNow(3), endDate: hoursFromNow(1) }, /endDate .* must be after startDate/],
    ['endDate is in the past', { startDate: hoursFromNow(-5), endDate: hoursFromNow(-1) }, /endDate .* is in the past/],
    ['the silence lasts more than 366 days', { endDate: hoursFromNow(24 * 400) }, /at most 366 days/],
  ])('refuses an input where %s with SILENCE_INVALID_INPUT naming the problem, and stores nothing', async (_, overrides, message) => {
    const input = silenceInput(overrides);
    expectFailure(await createSilence(input), 'SILENCE_INVALID_INPUT', message);
    expect(await silencesOf(input.alertId as string)).toEqual([]);
  });

  it('refuses a body that is not JSON with 400', async () => {
    const response = await gw.http.post('/graphql').set('content-type', 'application/json').send('{"query": ');
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toMatch(/not valid JSON/);
  });

  it("fails with ALERT_MANAGER_FAILED and the manager's answer when it refuses, and stores nothing", async () => {
    fx.alertmanager.respond = () => ({ status: 400, body: "Failed to create silence: end time can't be in the past" });
    const input = silenceInput({ manager: 'ALERTMANAGER' });
    expectFailure(await createSilence(input), 'ALERT_MANAGER_FAILED', /Alertmanager at http:\/\/127\.0\.0\.1:\d+ answered HTTP 400: Failed to create silence: end time can't be in the past/);
    expect(await silencesOf(input.alertId)).toEqual([]);
  });

  it('fails with ALERT_MANAGER_FAILED when the manager cannot be reached, and stores nothing', async () => {
    fx.grafana.respond = () => 'hang-up';
    const input = silenceInput({ manager: 'GRAFANA' });
    expectFailure(await createSilence(input), 'ALERT_MANAGER_FAILED', /Grafana at .* could not be reached/);
    expect(await silencesOf(input.alertId)).toEqual([]);
  });

  it('keeps the previous silence when the manager refuses its replacement', async () => {
    const first = silenceInput({ manager: 'ALERTMANAGER' });
    const firstId = await createSilenceOk(first);
    fx.alertmanager.respond = () => ({ status: 500, body: 'storage failure' });
    expectFailure(await createSilence({ ...first, endDate: hoursFromNow(9) }), 'ALERT_MANAGER_FAILED', /storage failure/);
    expect((await silencesOf(first.alertId)).map((row) => [row.id, row.end_time.toISOString()])).toEqual([[firstId, first.endDate]]);
  });
});

describe('createSilence on a gateway without Alertmanager or Grafana', () => {
  let bare: TestGateway;
  beforeAll(async () => {
    bare = await startTestGateway({ DATA_DIR: fx.dataDir });
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it('refuses a manager that is not configured with SILENCE_INVALID_INPUT naming the setting, and stores nothing', async () => {
    expectFailure(
      await createSilence(silenceInput({ manager: 'GRAFANA' }), bare),
      'SILENCE_INVALID_INPUT',
      /manager "grafana" is not configured on this gateway \(configured: embedded\); set GRAFANA_URL/,
    );
    expect((await bare.sql('SELECT count(*)::int AS n FROM alert_silences')).rows[0]!.n).toBe(0);
  });
});

describe('silence and silences', () => {
  it('reads a silence with its manager and its state', async () => {
    const input = silenceInput({ manager: 'ALERTMANAGER', startDate: hoursFromNow(1), endDate: hoursFromNow(2) });
    const id = await createSilenceOk(input);
    const silence = ok(await readSilence(id)).silence;
    expect(silence).toMatchObject({ id, alertId: input.alertId, manager: 'ALERTMANAGER', startDate: input.startDate, endDate: input.endDate, state: 'PENDING', createdBy: 'SYSTEM' });
    expect(silence.managerSilenceId).toMatch(UUID_PATTERN);
  });

  it('fails with SILENCE_NOT_FOUND for an unknown id, UUID or not', async () => {
    expectFailure(await readSilence(randomUUID()), 'SILENCE_NOT_FOUND', /does not exist/);
    expectFailure(await readSilence('not-a-uuid'), 'SILENCE_NOT_FOUND', /not-a-uuid does not exist/);
  });

  it('lists silences newest first with a total, filtered by alert and manager, a page at a time', async () => {
    const alertId = randomUUID();
    const id = await createSilenceOk(silenceInput({ alertId, manager: 'GRAFANA' }));
    const byAlert = ok(await listSilences({ filter: { alertId } })).silences;
    expect(byAlert.totalCount).toBe(1);
    expect(byAlert.nodes).toEqual([expect.objectContaining({ id, alertId, state: 'ACTIVE' })]);

    const all = ok(await listSilences({})).silences;
    const created = all.nodes.map((silence: { createdAt: string }) => Date.parse(silence.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(all.totalCount).toBe((await rows('SELECT id FROM alert_silences')).length);

    const grafanaOnly = ok(await listSilences({ filter: { manager: 'GRAFANA' } })).silences;
    expect(grafanaOnly.nodes.every((silence: { manager: string }) => silence.manager === 'GRAFANA')).toBe(true);

    const first = ok(await listSilences({ first: 1 })).silences;
    const second = ok(await listSilences({ first: 1, after: first.pageInfo.endCursor })).silences;
    expect(second.nodes[0].id).toBe(all.nodes[1].id);
  });

  it('refuses a bad filter: an unknown manager at the type level, an alertId that is not a UUID with SILENCE_INVALID_INPUT', async () => {
    expectRefusedByGraphQL(await listSilences({ filter: { manager: 'PROMETHEUS' } }), /AlertManagerKind/);
    expectFailure(await listSilences({ filter: { alertId: 'x' } }), 'SILENCE_INVALID_INPUT', /alertId filter must be a UUID/);
  });
});

describe('updateSilence', () => {
  it('moves the end at the manager first (replacing its silence), then in the record', async () => {
    const input = silenceInput({ manager: 'ALERTMANAGER' });
    const id = await createSilenceOk(input);
    const [before] = await silencesOf(input.alertId);
    const endDate = hoursFromNow(12);
    expect(ok(await updateSilence(id, { endDate })).updateSilence.silence).toMatchObject({ id, endDate });
    const sent = calls(fx.alertmanager, 'POST', '/api/v2/silences')
      .filter((request) => request.body.matchers[0].value === input.alertId)
      .at(-1)!;
    expect(sent.body).toMatchObject({ id: before.manager_silence_id, startsAt: input.startDate, endsAt: endDate });
    expect((await silencesOf(input.alertId))[0].end_time.toISOString()).toBe(endDate);
  });

  it('moves the start as well as the end', async () => {
    const input = silenceInput();
    const id = await createSilenceOk(input);
    const startDate = hoursFromNow(1);
    expect(ok(await updateSilence(id, { startDate })).updateSilence.silence).toMatchObject({ startDate, state: 'PENDING' });
  });

  it('refuses an end before the start or nothing to change with SILENCE_INVALID_INPUT, changing nothing', async () => {
    const input = silenceInput();
    const id = await createSilenceOk(input);
    expectFailure(await updateSilence(id, { endDate: hoursFromNow(-1) }), 'SILENCE_INVALID_INPUT', /must be after startDate/);
    expectFailure(await updateSilence(id, {}), 'SILENCE_INVALID_INPUT', /nothing to update/);
    expect((await silencesOf(input.alertId))[0].end_time.toISOString()).toBe(input.endDate);
  });

  it('leaves the record as it was when the manager refuses the change', async () => {
    const input = silenceInput({ manager: 'GRAFANA' });
    const id = await createSilenceOk(input);
    fx.grafana.respond = () => ({ status: 500, body: { message: 'alertmanager unavailable' } });
    expectFailure(await updateSilence(id, { endDate: hoursFromNow(30) }), 'ALERT_MANAGER_FAILED', /alertmanager unavailable/);
    expect((await silencesOf(input.alertId))[0].end_time.toISOString()).toBe(input.endDate);
  });

  it('fails with SILENCE_NOT_FOUND for an unknown silence', async () => {
    expectFailure(await updateSilence(randomUUID(), { endDate: hoursFromNow(3) }), 'SILENCE_NOT_FOUND', /does not exist/);
  });
});

describe('deleteSilence', () => {
  it('ends the silence at its manager, then deletes the record', async () => {
    const input = silenceInput({ manager: 'ALERTMANAGER' });
    const id = await createSilenceOk(input);
    const [before] = await silencesOf(input.alertId);
    expect(ok(await deleteSilence(id)).deleteSilence).toEqual({ id, message: `Silence ${id} ended and deleted` });
    expect(calls(fx.alertmanager, 'DELETE', `/api/v2/silence/${before.manager_silence_id}`)).toHaveLength(1);
    expect(await silencesOf(input.alertId)).toEqual([]);
  });

  it('keeps the record when the manager cannot end the silence', async () => {
    const input = silenceInput({ manager: 'ALERTMANAGER' });
    const id = await createSilenceOk(input);
    fx.alertmanager.respond = () => ({ status: 503, body: 'shutting down' });
    expectFailure(await deleteSilence(id), 'ALERT_MANAGER_FAILED', /answered HTTP 503: shutting down/);
    expect(await silencesOf(input.alertId)).toHaveLength(1);
  });

  it('fails with SILENCE_NOT_FOUND for an unknown silence', async () => {
    expectFailure(await deleteSilence(randomUUID()), 'SILENCE_NOT_FOUND', /does not exist/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('createMetricAlias', () => {
  it('creates an alias, answers it and stores it with the component in lower case', async () => {
    const input = aliasInput();
    const created = ok(await createAlias(input)).createMetricAlias;
    expect(created.message).toBe(`Metric alias ${input.alias} created`);
    expect(created.metricAlias).toMatchObject({ alias: input.alias, component: 'processing', metric: input.metric, subComponent: null, context: null, createdBy: 'SYSTEM' });
    expect((await aliasesNamed(input.alias))[0].id).toBe(created.metricAlias.id);
  });

  it('keeps the optional subComponent and context', async () => {
    const input = aliasInput({ subComponent: 'd1', context: { datasetId: 'd1' } });
    await createAliasOk(input);
    expect((await aliasesNamed(input.alias))[0]).toMatchObject({ sub_component: 'd1', context: { datasetId: 'd1' } });
  });

  it.each([
    ['a metric that is not PromQL', { metric: 'sum(rate(x[5m])' }, /metric expression is not valid PromQL: expected "\)"/],
    ['a function given the wrong type', { metric: 'rate(http_requests_total)' }, /expected type range vector in call to function "rate", got instant vector/],
    ['an unknown function', { metric: 'summ(x)' }, /unknown function "summ"/],
    ['a metric that is a range vector', { metric: 'http_requests_total[5m]' }, /instant vector or a scalar, not a range vector/],
    ['an empty alias', { alias: '' }, /alias must not be empty/],
    ['a context that is not an object', { context: ['d1'] }, /context must be a JSON object/],
  ])('refuses %s with METRIC_ALIAS_INVALID_INPUT, and stores nothing', async (_, overrides, message) => {
    const input = aliasInput(overrides);
    expectFailure(await createAlias(input), 'METRIC_ALIAS_INVALID_INPUT', message);
    expect(await aliasesNamed(input.alias)).toEqual([]);
  });

  it('refuses an input without a metric at the type level, and stores nothing', async () => {
    const input = aliasInput({ metric: undefined });
    expectRefusedByGraphQL(await createAlias(input), /metric/);
    expect(await aliasesNamed(input.alias)).toEqual([]);
  });

  it('fails with METRIC_ALIAS_ALREADY_EXISTS for an alias that is taken, leaving the first as it was', async () => {
    const input = aliasInput();
    await createAliasOk(input);
    expectFailure(await createAlias({ ...input, metric: 'up' }), 'METRIC_ALIAS_ALREADY_EXISTS', /already exists/);
    expect((await aliasesNamed(input.alias)).map((row) => row.metric)).toEqual([input.metric]);
  });
});

describe('metricAlias and metricAliases', () => {
  it('reads an alias', async () => {
    const input = aliasInput({ subComponent: 'd2' });
    const id = await createAliasOk(input);
    expect(ok(await readAlias(id)).metricAlias).toMatchObject({ id, alias: input.alias, component: 'processing', subComponent: 'd2', metric: input.metric, createdBy: 'SYSTEM' });
  });

  it('fails with METRIC_ALIAS_NOT_FOUND for an unknown alias', async () => {
    expectFailure(await readAlias(randomUUID()), 'METRIC_ALIAS_NOT_FOUND', /does not exist/);
  });

  it('lists aliases with a total, filtered by component and sub-component', async () => {
    const subComponent = `ds-${randomUUID()}`;
    const id = await createAliasOk(aliasInput({ component: 'Storage', subComponent }));
    await createAliasOk(aliasInput({ component: 'query', subComponent }));
    const storage = ok(await listAliases({ filter: { component: 'STORAGE', subComponent } })).metricAliases;
    expect(storage).toEqual({ totalCount: 1, nodes: [expect.objectContaining({ id, component: 'storage' })] });
    const page = ok(await listAliases({ filter: { subComponent }, first: 1 })).metricAliases;
    expect(page.nodes).toHaveLength(1);
    expect(page.totalCount).toBe(2);
  });

  it('refuses a filter the list does not know at the type level (no raw filters reach the database)', async () => {
    expectRefusedByGraphQL(await listAliases({ filter: { metric: { $like: '%' } } }), /metric/);
  });
});

describe('updateMetricAlias and deleteMetricAlias', () => {
  it('changes the metric and component of an alias', async () => {
    const input = aliasInput();
    const id = await createAliasOk(input);
    expect(ok(await updateAlias(id, { metric: 'avg_over_time(up[10m]) < 1', component: 'API' })).updateMetricAlias.metricAlias).toMatchObject({ id, component: 'api' });
    expect((await aliasesNamed(input.alias))[0]).toMatchObject({ metric: 'avg_over_time(up[10m]) < 1', component: 'api' });
  });

  it('refuses a metric that is not PromQL, or nothing to change, with METRIC_ALIAS_INVALID_INPUT, changing nothing', async () => {
    const input = aliasInput();
    const id = await createAliasOk(input);
    expectFailure(await updateAlias(id, { metric: 'up{job=}' }), 'METRIC_ALIAS_INVALID_INPUT', /quoted label value/);
    expectFailure(await updateAlias(id, {}), 'METRIC_ALIAS_INVALID_INPUT', /nothing to update/);
    expect((await aliasesNamed(input.alias))[0].metric).toBe(input.metric);
  });

  it('fails with METRIC_ALIAS_ALREADY_EXISTS when renamed to a taken alias', async () => {
    const taken = aliasInput();
    await createAliasOk(taken);
    const id = await createAliasOk(aliasInput());
    expectFailure(await updateAlias(id, { alias: taken.alias }), 'METRIC_ALIAS_ALREADY_EXISTS', /already exists/);
  });

  it('deletes an alias, and fails with METRIC_ALIAS_NOT_FOUND for one that does not exist', async () => {
    const input = aliasInput();
    const id = await createAliasOk(input);
    expect(ok(await deleteAlias(id)).deleteMetricAlias).toEqual({ id });
    expect(await aliasesNamed(input.alias)).toEqual([]);
    expectFailure(await deleteAlias(id), 'METRIC_ALIAS_NOT_FOUND', /does not exist/);
    expectFailure(await updateAlias(id, { metric: 'up' }), 'METRIC_ALIAS_NOT_FOUND', /does not exist/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('createNotificationChannel', () => {
  it('creates an email channel, answers it with its recipients split, and stores it', async () => {
    const input = emailChannel();
    const created = ok(await createChannel(input)).createNotificationChannel;
    expect(created.channel).toMatchObject({
      manager: 'EMBEDDED',
      name: input.name,
      type: 'EMAIL',
      config: { recipientAddresses: input.config.recipientAddresses, recipients: ['ops@example.com', 'oncall@example.com'], subject: 'Gateway alert', message: null, webhookUrl: null },
      createdBy: 'SYSTEM',
    });
    const [stored] = await channelsNamed(input.name);
    expect(stored).toMatchObject({ id: created.channel.id, manager: 'embedded', type: 'email', config: input.config });
  });

  it('creates a Grafana channel as a contact point whose uid is the channel id, with the token and provenance off', async () => {
    const input = slackChannel({ manager: 'GRAFANA' });
    const id = await createChannelOk(input);
    const [sent] = calls(fx.grafana, 'POST', '/api/v1/provisioning/contact-points').filter((request) => request.body.uid === id);
    expect(sent!.body).toEqual({ uid: id, name: input.name, type: 'slack', settings: { url: input.config.webhookUrl }, disableResolveMessage: false });
    expect(sent!.headers.authorization).toBe(`Bearer ${GRAFANA_TOKEN}`);
    expect(sent!.headers['x-disable-provenance']).toBe('true');
  });

  it('sends Grafana an e-mail contact point with the addresses split and joined as Grafana wants them', async () => {
    const input = emailChannel({ manager: 'GRAFANA', config: { recipientAddresses: ' ops@example.com ; dev@example.com; ', subject: 'Alert' } });
    const id = await createChannelOk(input);
    const [sent] = calls(fx.grafana, 'POST', '/api/v1/provisioning/contact-points').filter((request) => request.body.uid === id);
    expect(sent!.body.settings).toEqual({ addresses: 'ops@example.com;dev@example.com', singleEmail: false, subject: 'Alert' });
  });

  it.each([
    ['a type the gateway cannot deliver', { type: 'SMS' }, /NotificationChannelType/],
    ['a config field nobody reads', { config: { recipientAddresses: 'ops@example.com', labels: {} } }, /labels/],
    ['no name', { name: undefined }, /name/],
  ])('refuses %s at the type level, and stores nothing', async (_, overrides, message) => {
    const input = emailChannel(overrides);
    expectRefusedByGraphQL(await createChannel(input), message);
    expect(await channelsNamed(input.name ?? '')).toEqual([]);
  });

  it.each([
    ['an email channel without recipients', { config: { subject: 'x' } }, /config\.recipientAddresses is required for email channels/],
    ['a recipient that is not an e-mail address', { config: { recipientAddresses: 'ops@example.com;not-an-address' } }, /"not-an-address" is not a valid e-mail address/],
    ['a webhook URL on an email channel', { config: { recipientAddresses: 'ops@example.com', webhookUrl: 'https://hooks.slack.com/x' } }, /webhookUrl does not apply to email channels/],
    ['Alertmanager as the manager (it has no API for receivers)', { manager: 'ALERTMANAGER' }, /manager "alertmanager" cannot hold notification channels/],
  ])('refuses %s with NOTIFICATION_CHANNEL_INVALID_INPUT, and stores nothing', async (_, overrides, message) => {
    const input = emailChannel(overrides);
    expectFailure(await createChannel(input), 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
    expect(await channelsNamed(input.name)).toEqual([]);
  });

  it.each([
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['loopback on a port that is not listed', 'http://127.0.0.1:9/hook'],
    ['localhost, which is not listed', 'http://localhost/hook'],
    ['a host that only ends like an allowed one', 'https://evilhooks.slack.com.attacker.example/x'],
    ['a URL with credentials', 'http://user:secret@127.0.0.1:0/hook'],
  ])('refuses a webhook URL naming %s (SSRF guard) with NOTIFICATION_CHANNEL_INVALID_INPUT, and stores nothing', async (_, url) => {
    const input = slackChannel({ config: { webhookUrl: url.replace(':0/', `:${fx.webhook.port}/`) } });
    expectFailure(await createChannel(input), 'NOTIFICATION_CHANNEL_INVALID_INPUT', /config\.webhookUrl (names host .* which is not in WEBHOOK_ALLOWED_HOSTS|must not carry credentials)/);
    expect(await channelsNamed(input.name)).toEqual([]);
  });

  it('accepts a webhook on an allowed wildcard domain', async () => {
    const input = slackChannel({ type: 'TEAMS', config: { webhookUrl: 'https://contoso.webhook.office.com/webhookb2/abc' } });
    const channel = ok(await createChannel(input)).createNotificationChannel.channel;
    expect(channel.config.webhookUrl).toBe('https://contoso.webhook.office.com/webhookb2/abc');
  });

  it('fails with NOTIFICATION_CHANNEL_ALREADY_EXISTS for a name that is taken', async () => {
    const input = emailChannel();
    await createChannelOk(input);
    expectFailure(await createChannel({ ...input, type: 'SLACK', config: slackChannel().config }), 'NOTIFICATION_CHANNEL_ALREADY_EXISTS', /already exists/);
    expect((await channelsNamed(input.name)).map((row) => row.type)).toEqual(['email']);
  });

  it('fails with ALERT_MANAGER_FAILED when Grafana refuses the contact point, and stores nothing', async () => {
    fx.grafana.respond = () => ({ status: 400, body: { message: 'invalid settings', traceID: '' } });
    const input = emailChannel({ manager: 'GRAFANA' });
    expectFailure(await createChannel(input), 'ALERT_MANAGER_FAILED', /Grafana at .* answered HTTP 400: .*invalid settings/);
    expect(await channelsNamed(input.name)).toEqual([]);
  });
});

describe('notificationChannel and notificationChannels', () => {
  it('reads a channel with its config', async () => {
    const input = emailChannel();
    const id = await createChannelOk(input);
    expect(ok(await readChannel(id)).notificationChannel).toMatchObject({ id, manager: 'EMBEDDED', name: input.name, type: 'EMAIL', config: { subject: 'Gateway alert' } });
  });

  it('fails with NOTIFICATION_CHANNEL_NOT_FOUND for an unknown channel', async () => {
    expectFailure(await readChannel(randomUUID()), 'NOTIFICATION_CHANNEL_NOT_FOUND', /does not exist/);
  });

  it('lists channels with a total, filtered by manager and type', async () => {
    const id = await createChannelOk(slackChannel({ manager: 'GRAFANA', type: 'TEAMS' }));
    const found = ok(await listChannels({ filter: { manager: 'GRAFANA', type: 'TEAMS' } })).notificationChannels;
    expect(found.nodes.map((channel: { id: string }) => channel.id)).toContain(id);
    expect(found.nodes.every((channel: { manager: string; type: string }) => channel.manager === 'GRAFANA' && channel.type === 'TEAMS')).toBe(true);
    expect(found.totalCount).toBe(found.nodes.length);
  });
});

describe('updateNotificationChannel and deleteNotificationChannel', () => {
  it('changes a Grafana channel at Grafana first (PUT of its contact point), then in the record', async () => {
    const input = emailChannel({ manager: 'GRAFANA' });
    const id = await createChannelOk(input);
    const config = { recipientAddresses: 'new@example.com' };
    expect(ok(await updateChannel(id, { config })).updateNotificationChannel.channel.config).toMatchObject({ recipients: ['new@example.com'], subject: null });
    const [sent] = calls(fx.grafana, 'PUT', `/api/v1/provisioning/contact-points/${id}`);
    expect(sent!.body.settings).toEqual({ addresses: 'new@example.com', singleEmail: true });
    expect((await channelsNamed(input.name))[0].config).toEqual(config);
  });

  it('refuses a new type without a config for it, changing nothing', async () => {
    const input = emailChannel();
    const id = await createChannelOk(input);
    expectFailure(await updateChannel(id, { type: 'SLACK' }), 'NOTIFICATION_CHANNEL_INVALID_INPUT', /recipientAddresses does not apply to slack channels/);
    expect((await channelsNamed(input.name))[0].type).toBe('email');
  });

  it('leaves the record as it was when Grafana refuses the change', async () => {
    const input = emailChannel({ manager: 'GRAFANA' });
    const id = await createChannelOk(input);
    fx.grafana.respond = () => ({ status: 500, body: 'database is locked' });
    expectFailure(await updateChannel(id, { name: `${input.name} renamed` }), 'ALERT_MANAGER_FAILED', /database is locked/);
    expect(await channelsNamed(input.name)).toHaveLength(1);
  });

  it('removes a Grafana channel from Grafana, then deletes the record', async () => {
    const input = slackChannel({ manager: 'GRAFANA' });
    const id = await createChannelOk(input);
    expect(ok(await deleteChannel(id)).deleteNotificationChannel).toEqual({ id });
    expect(calls(fx.grafana, 'DELETE', `/api/v1/provisioning/contact-points/${id}`)).toHaveLength(1);
    expect(await channelsNamed(input.name)).toEqual([]);
    expectFailure(await deleteChannel(id), 'NOTIFICATION_CHANNEL_NOT_FOUND', /does not exist/);
  });

  it('keeps the record when Grafana cannot remove the contact point', async () => {
    const input = slackChannel({ manager: 'GRAFANA' });
    const id = await createChannelOk(input);
    fx.grafana.respond = () => ({ status: 409, body: { message: 'contact point is in use by a notification policy' } });
    expectFailure(await deleteChannel(id), 'ALERT_MANAGER_FAILED', /in use by a notification policy/);
    expect(await channelsNamed(input.name)).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('testNotificationChannel', () => {
  it('sends an e-mail over SMTP to every address and answers "Notification Sent" with the server\'s reply', async () => {
    const received = fx.smtp.messages.length;
    const input = { message: 'Disk almost full on node-3', channel: { manager: 'EMBEDDED', name: 'Ops mail', type: 'EMAIL', config: { recipientAddresses: 'ops@example.com;oncall@example.com' } } };
    expect(ok(await testChannel(input)).testNotificationChannel).toEqual({
      status: 'Notification Sent',
      transport: 'smtp',
      response: expect.stringMatching(/^250 OK: message queued as /),
      channelId: null,
    });
    const mail = fx.smtp.messages[received]!;
    expect(mail.to).toEqual(['ops@example.com', 'oncall@example.com']);
    expect(mail.from).toBe('alerts@localhost');
    expect(header(mail, 'Subject')).toBe('Test notification');
    expect(mail.data).toContain('Disk almost full on node-3');
  });

  it('tests a stored channel given by id, with its subject, and answers its id', async () => {
    const id = await createChannelOk(emailChannel({ config: { recipientAddresses: 'stored@example.com', subject: 'Stored subject' } }));
    const received = fx.smtp.messages.length;
    expect(ok(await testChannel({ message: 'hello', channelId: id })).testNotificationChannel).toMatchObject({ status: 'Notification Sent', channelId: id, transport: 'smtp' });
    expect(fx.smtp.messages[received]!.to).toEqual(['stored@example.com']);
    expect(header(fx.smtp.messages[received]!, 'Subject')).toBe('Stored subject');
  });

  it("posts {text} to a Slack webhook and reports the webhook's answer", async () => {
    expect(ok(await testChannel({ message: 'Ingestion lag above 5 minutes', channel: slackChannel() })).testNotificationChannel).toEqual({
      status: 'Notification Sent',
      transport: 'webhook',
      response: 'HTTP 200: ok',
      channelId: null,
    });
    const [sent] = fx.webhook.requests.filter((request) => request.body?.text === 'Ingestion lag above 5 minutes');
    expect(sent!.path).toBe('/hooks/T000/B000');
  });

  it("fails with NOTIFICATION_FAILED and the webhook's answer when it refuses the message", async () => {
    fx.webhook.respond = () => ({ status: 404, body: 'no_service' });
    expectFailure(await testChannel({ message: 'x', channel: slackChannel() }), 'NOTIFICATION_FAILED', /the webhook at 127\.0\.0\.1:\d+ answered HTTP 404: no_service/);
  });

  it("does not follow a webhook's redirect (it could lead to a host that is not allowed)", async () => {
    const target = `/redirected-${randomUUID()}`;
    fx.webhook.respond = (request) => (request.path === target ? { status: 200, body: 'ok' } : { status: 302, headers: { location: `${fx.webhook.url}${target}` } });
    expectFailure(await testChannel({ message: 'x', channel: slackChannel() }), 'NOTIFICATION_FAILED', /redirect \(HTTP 302\), which the gateway does not follow/);
    expect(fx.webhook.requests.filter((request) => request.path === target)).toEqual([]);
  });

  it('fails with NOTIFICATION_FAILED naming the address the SMTP server refused', async () => {
    fx.smtp.refuse.add('gone@example.com');
    const channel = { manager: 'EMBEDDED', name: 'Mail', type: 'EMAIL', config: { recipientAddresses: 'ops@example.com;gone@example.com' } };
    expectFailure(await testChannel({ message: 'x', channel }), 'NOTIFICATION_FAILED', /SMTP at smtp:\/\/127\.0\.0\.1:\d+\/? refused gone@example\.com/);
  });

  it("tests a Grafana channel through Grafana's receiver test and reports its result", async () => {
    const id = await createChannelOk(emailChannel({ manager: 'GRAFANA' }));
    expect(ok(await testChannel({ message: 'via grafana', channelId: id })).testNotificationChannel).toMatchObject({
      channelId: id,
      transport: 'grafana',
      response: expect.stringMatching(/^HTTP 200: .* ok$/),
    });
    const [sent] = calls(fx.grafana, 'POST', '/api/alertmanager/grafana/config/api/v1/receivers/test').filter((request) => request.body.receivers[0].grafana_managed_receiver_configs[0].uid === id);
    expect(sent!.body.alert.annotations.description).toBe('via grafana');
  });

  it("fails with NOTIFICATION_FAILED and Grafana's reason when its receiver test fails", async () => {
    const id = await createChannelOk(emailChannel({ manager: 'GRAFANA' }));
    fx.grafana.respond = () => ({ status: 207, body: { receivers: [{ name: 'x', grafana_managed_receiver_configs: [{ name: 'x', uid: id, status: 'failed', error: 'SMTP not configured' }] }] } });
    expectFailure(await testChannel({ channelId: id }), 'NOTIFICATION_FAILED', /could not deliver the test message: SMTP not configured/);
  });

  it('refuses a webhook that is not allowed with NOTIFICATION_CHANNEL_INVALID_INPUT before calling anything', async () => {
    const before = fx.webhook.requests.length;
    expectFailure(
      await testChannel({ message: 'x', channel: slackChannel({ config: { webhookUrl: 'http://10.0.0.5/internal-admin' } }) }),
      'NOTIFICATION_CHANNEL_INVALID_INPUT',
      /names host 10\.0\.0\.5/,
    );
    expect(fx.webhook.requests.length).toBe(before);
  });

  it.each([
    ['neither a stored channel nor a channel', { message: 'x' }, /give the id of a stored channel, or the channel to test/],
    ['both a stored channel and a channel', { channelId: randomUUID(), channel: { manager: 'EMBEDDED', name: 'n', type: 'EMAIL', config: { recipientAddresses: 'a@b.c' } } }, /not both/],
    ['an empty message', { message: '', channelId: randomUUID() }, /message must not be empty/],
    ['a bad address', { channel: { manager: 'EMBEDDED', name: 'n', type: 'EMAIL', config: { recipientAddresses: 'a@b@c' } } }, /"a@b@c" is not a valid e-mail address/],
  ])('refuses %s with NOTIFICATION_CHANNEL_INVALID_INPUT, sending nothing', async (_, input, message) => {
    const sent = fx.smtp.messages.length;
    expectFailure(await testChannel(input), 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
    expect(fx.smtp.messages.length).toBe(sent);
  });

  it('refuses a channel missing its name at the type level, sending nothing', async () => {
    expectRefusedByGraphQL(await testChannel({ message: 'x', channel: { manager: 'EMBEDDED', type: 'EMAIL', config: {} } }), /name/);
  });

  it('fails with NOTIFICATION_CHANNEL_NOT_FOUND for a stored channel that does not exist', async () => {
    expectFailure(await testChannel({ channelId: randomUUID() }), 'NOTIFICATION_CHANNEL_NOT_FOUND', /does not exist/);
  });
});
