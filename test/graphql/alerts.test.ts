// Alerting over GraphQL (POST /graphql): what only GraphQL has. The behaviour both transports share
// is in test/contract/alert-silences.ts, alert-metric-aliases.ts and alert-channels.ts; here are the
// types that refuse an input before any resolver runs (where REST's request schema refuses the same
// body), what only GraphQL's input shape can hold (a label given twice, a test of neither or both a
// stored channel and a channel), the mutations' payloads (the record as stored and a message, a
// channel's recipients split), the cursor pages of silences and a body that is not JSON. Tests
// share one database: every test uses ids and names of its own.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { expectFailure as expectRefusal, graphqlServiceOutcome } from '../contract/harness.js';
import { graphql, UUID_PATTERN, type GraphQLResponse } from '../support/api.js';
import {
  aliasBody,
  aliasesNamed,
  channelsNamed,
  emailChannel,
  hoursFromNow,
  silenceBody,
  silencesOf,
  slackChannel,
  useAlertingGateway,
  type ChannelBody,
  type SilenceBody,
} from '../support/alerting.js';

const gw = useAlertingGateway();

const SILENCE = 'id: silenceId alertId manager managerSilenceId startDate endDate state comment createdBy updatedBy createdAt updatedAt';
const ALIAS = 'id: metricAliasId alias component subComponent metric context createdBy updatedBy createdAt updatedAt';
const CHANNEL = 'id: channelId manager name type config { recipientAddresses recipients subject message webhookUrl } createdBy updatedBy createdAt updatedAt';

/** The shared bodies with GraphQL's enum values (managers and types in capitals). */
function silenceInput(overrides: Record<string, unknown> = {}) {
  return { ...silenceBody(), manager: 'EMBEDDED', ...overrides } as SilenceBody & Record<string, unknown>;
}

function channelInput(channel: ChannelBody, overrides: Record<string, unknown> = {}) {
  return { ...channel, manager: channel.manager?.toUpperCase(), type: channel.type.toUpperCase(), ...overrides } as ChannelBody & Record<string, unknown>;
}

const createSilence = (input: unknown) => graphql(gw(), `mutation($input: CreateSilenceInput!) { createSilence(input: $input) { message silence { ${SILENCE} } } }`, { input });
const updateSilence = (id: string, input: unknown) =>
  graphql(gw(), `mutation($id: ID!, $input: UpdateSilenceInput!) { updateSilence(id: $id, input: $input) { silence { ${SILENCE} } } }`, { id, input });
const listSilences = (variables: Record<string, unknown>) =>
  graphql(
    gw(),
    `query($filter: SilenceFilter, $first: Int, $after: String) { silences(filter: $filter, first: $first, after: $after) { totalCount nodes { ${SILENCE} } pageInfo { hasNextPage endCursor } } }`,
    variables,
  );

const createAlias = (input: unknown) => graphql(gw(), `mutation($input: CreateMetricAliasInput!) { createMetricAlias(input: $input) { message metricAlias { ${ALIAS} } } }`, { input });
const updateAlias = (id: string, input: unknown) =>
  graphql(gw(), `mutation($id: ID!, $input: UpdateMetricAliasInput!) { updateMetricAlias(id: $id, input: $input) { metricAlias { ${ALIAS} } } }`, { id, input });
const listAliases = (variables: Record<string, unknown>) =>
  graphql(gw(), `query($filter: MetricAliasFilter, $first: Int) { metricAliases(filter: $filter, first: $first) { totalCount nodes { ${ALIAS} } } }`, variables);

const createChannel = (input: unknown) => graphql(gw(), `mutation($input: CreateNotificationChannelInput!) { createNotificationChannel(input: $input) { message channel { ${CHANNEL} } } }`, { input });
const updateChannel = (id: string, input: unknown) =>
  graphql(gw(), `mutation($id: ID!, $input: UpdateNotificationChannelInput!) { updateNotificationChannel(id: $id, input: $input) { channel { ${CHANNEL} } } }`, { id, input });
const testChannel = (input: unknown) => graphql(gw(), 'mutation($input: TestNotificationChannelInput!) { testNotificationChannel(input: $input) { status transport response channelId } }', { input });

/** The data of a response that must have succeeded. */
function ok(response: GraphQLResponse): Record<string, any> {
  expect(response.errors).toBeUndefined();
  return response.data!;
}

/** A single error from our services (graphqlServiceOutcome checks its shape and kind): this code, a message matching `message`. */
function expectFailure(response: GraphQLResponse, field: string, code: string, message: RegExp): void {
  expectRefusal(graphqlServiceOutcome(response, field), code, message);
}

/** GraphQL itself refused the request (type or validation level): no data, an error matching `message`. */
function expectRefusedByGraphQL(response: GraphQLResponse, message: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.data ?? null).toBeNull();
  expect(response.errors![0]!.message).toMatch(message);
}

async function createSilenceOk(input: unknown): Promise<string> {
  return ok(await createSilence(input)).createSilence.silence.id;
}

async function createChannelOk(input: unknown): Promise<string> {
  return ok(await createChannel(input)).createNotificationChannel.channel.id;
}

describe('the types refuse before any resolver runs', () => {
  it.each([
    ['alertId is missing', { alertId: undefined }, /alertId/],
    ['startDate is not an ISO 8601 date-time', { startDate: '22/11/2026' }, /DateTime/],
    ['endDate is missing', { endDate: undefined }, /endDate/],
    ['the input has a field the schema does not', { severity: 'high' }, /severity/],
  ])('refuses a createSilence input where %s, and stores nothing', async (_, overrides, message) => {
    const input = silenceInput(overrides);
    const requestsBefore = gw().fx.alertmanager.requests.length;
    expectRefusedByGraphQL(await createSilence(input), message);
    if (typeof input.alertId === 'string') expect(await silencesOf(gw(), input.alertId)).toEqual([]);
    expect(gw().fx.alertmanager.requests.length).toBe(requestsBefore);
  });

  it('refuses a silences filter naming an unknown manager', async () => {
    expectRefusedByGraphQL(await listSilences({ filter: { manager: 'PROMETHEUS' } }), /AlertManagerKind/);
  });

  it('refuses a createMetricAlias input without a metric, and stores nothing', async () => {
    const input = aliasBody({ metric: undefined });
    expectRefusedByGraphQL(await createAlias(input), /metric/);
    expect(await aliasesNamed(gw(), input.alias)).toEqual([]);
  });

  it('refuses a metricAliases filter it does not know (no raw filters reach the database)', async () => {
    expectRefusedByGraphQL(await listAliases({ filter: { metric: { $like: '%' } } }), /metric/);
  });

  it.each([
    ['a type the gateway cannot deliver', { type: 'SMS' }, /NotificationChannelType/],
    ['a config field nobody reads', { config: { recipientAddresses: 'ops@example.com', color: 'red' } }, /color/],
    ['labels that are not name/value pairs', { config: { recipientAddresses: 'ops@example.com', labels: [{ team: 'ops' }] } }, /team/],
    ['no name', { name: undefined }, /name/],
  ])('refuses a createNotificationChannel input with %s, and stores nothing', async (_, overrides, message) => {
    const input = channelInput(emailChannel(), overrides);
    expectRefusedByGraphQL(await createChannel(input), message);
    expect(await channelsNamed(gw(), input.name ?? '')).toEqual([]);
  });

  it.each([
    ['a field channels cannot be ordered by', [{ field: 'CONFIG' }], /NotificationChannelOrderField/],
    ['a direction that is not one', [{ field: 'NAME', order: 'SIDEWAYS' }], /SortOrder/],
  ])('refuses a notificationChannels order with %s', async (_, orderBy, message) => {
    expectRefusedByGraphQL(await graphql(gw(), 'query($orderBy: [NotificationChannelOrder!]) { notificationChannels(orderBy: $orderBy) { totalCount } }', { orderBy }), message);
  });

  it('refuses a test of a channel missing its name, sending nothing', async () => {
    const sent = gw().fx.smtp.messages.length;
    expectRefusedByGraphQL(await testChannel({ message: 'x', channel: { manager: 'EMBEDDED', type: 'EMAIL', config: {} } }), /name/);
    expect(gw().fx.smtp.messages.length).toBe(sent);
  });
});

// The rules about values (UUIDs, emptiness, nothing to update, lengths) answer one message on both
// transports: test/contract/alert-silences.ts, alert-metric-aliases.ts and alert-channels.ts. Here:
// what only GraphQL's input shape can say (labels as a list, a test's channelId beside a channel).
describe("what only GraphQL's input shape can hold", () => {
  it('refuses a config label given twice with NOTIFICATION_CHANNEL_INVALID_INPUT, and stores nothing', async () => {
    const labels = [
      { name: 'team', value: 'ops' },
      { name: 'team', value: 'dev' },
    ];
    const input = channelInput(emailChannel(), { config: { recipientAddresses: 'ops@example.com', labels } });
    expectFailure(await createChannel(input), 'createNotificationChannel', 'NOTIFICATION_CHANNEL_INVALID_INPUT', /config\.labels: "team" is given more than once/);
    expect(await channelsNamed(gw(), input.name)).toEqual([]);
  });

  it.each([
    ['neither a stored channel nor a channel', { message: 'x' }, /give the id of a stored channel, or the channel to test/],
    ['both a stored channel and a channel', { channelId: randomUUID(), channel: { manager: 'EMBEDDED', name: 'n', type: 'EMAIL', config: { recipientAddresses: 'a@b.c' } } }, /not both/],
  ])('refuses a test of %s with NOTIFICATION_CHANNEL_INVALID_INPUT, sending nothing', async (_, input, message) => {
    const sent = gw().fx.smtp.messages.length;
    expectFailure(await testChannel(input), 'testNotificationChannel', 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
    expect(gw().fx.smtp.messages.length).toBe(sent);
  });
});

describe('payloads', () => {
  it('createSilence answers the silence as stored and a message', async () => {
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
    expect((await silencesOf(gw(), input.alertId))[0].id).toBe(created.silence.id);

    const atAlertmanager = silenceInput({ manager: 'ALERTMANAGER' });
    const silence = ok(await createSilence(atAlertmanager)).createSilence.silence;
    expect(silence.managerSilenceId).toMatch(UUID_PATTERN);
    expect((await silencesOf(gw(), atAlertmanager.alertId))[0].manager_silence_id).toBe(silence.managerSilenceId);
  });

  it('updateSilence answers the silence with its new window and state', async () => {
    const id = await createSilenceOk(silenceInput());
    const endDate = hoursFromNow(12);
    expect(ok(await updateSilence(id, { endDate })).updateSilence.silence).toMatchObject({ id, endDate });
    const startDate = hoursFromNow(1);
    expect(ok(await updateSilence(id, { startDate })).updateSilence.silence).toMatchObject({ startDate, state: 'PENDING' });
  });

  it('deleteSilence answers the id and a message', async () => {
    const id = await createSilenceOk(silenceInput());
    expect(ok(await graphql(gw(), 'mutation($id: ID!) { deleteSilence(id: $id) { id message } }', { id })).deleteSilence).toEqual({ id, message: `Silence ${id} ended and deleted` });
  });

  it('createMetricAlias and updateMetricAlias answer the alias as stored', async () => {
    const input = aliasBody();
    const created = ok(await createAlias(input)).createMetricAlias;
    expect(created.message).toBe(`Metric alias ${input.alias} created`);
    expect(created.metricAlias).toMatchObject({ alias: input.alias, component: 'processing', metric: input.metric, subComponent: null, context: null, createdBy: 'SYSTEM' });
    expect((await aliasesNamed(gw(), input.alias))[0].id).toBe(created.metricAlias.id);
    const id = created.metricAlias.id;
    expect(ok(await updateAlias(id, { metric: 'avg_over_time(up[10m]) < 1', component: 'API' })).updateMetricAlias.metricAlias).toMatchObject({ id, component: 'api' });
  });

  it('createNotificationChannel and updateNotificationChannel answer the channel with its recipients split', async () => {
    const input = channelInput(emailChannel());
    const created = ok(await createChannel(input)).createNotificationChannel;
    expect(created.channel).toMatchObject({
      manager: 'EMBEDDED',
      name: input.name,
      type: 'EMAIL',
      config: { recipientAddresses: input.config.recipientAddresses, recipients: ['ops@example.com', 'oncall@example.com'], subject: 'Gateway alert', message: null, webhookUrl: null },
      createdBy: 'SYSTEM',
    });
    expect((await channelsNamed(gw(), input.name))[0]).toMatchObject({ id: created.channel.id, manager: 'embedded', type: 'email', config: input.config });

    const id = await createChannelOk(channelInput(emailChannel({ manager: 'grafana' })));
    const config = { recipientAddresses: 'new@example.com' };
    expect(ok(await updateChannel(id, { config })).updateNotificationChannel.channel.config).toMatchObject({ recipients: ['new@example.com'], subject: null });
  });

  it('testNotificationChannel answers channelId null for a channel that is not stored', async () => {
    const channel = { manager: 'EMBEDDED', name: 'Ops mail', type: 'EMAIL', config: { recipientAddresses: 'ops@example.com;oncall@example.com' } };
    expect(ok(await testChannel({ message: 'Disk almost full on node-3', channel })).testNotificationChannel).toMatchObject({ transport: 'smtp', channelId: null });
    expect(ok(await testChannel({ message: 'Ingestion lag above 5 minutes', channel: channelInput(slackChannel(gw().fx.webhook)) })).testNotificationChannel).toEqual({
      status: 'Notification Sent',
      transport: 'webhook',
      response: 'HTTP 200: ok',
      channelId: null,
    });
  });
});

describe('silences: the connection', () => {
  it('pages with first and after', async () => {
    await createSilenceOk(silenceInput());
    await createSilenceOk(silenceInput());
    const all = ok(await listSilences({})).silences;
    const first = ok(await listSilences({ first: 1 })).silences;
    const second = ok(await listSilences({ first: 1, after: first.pageInfo.endCursor })).silences;
    expect(second.nodes[0].id).toBe(all.nodes[1].id);
  });
});

it('refuses a body that is not JSON with 400', async () => {
  const response = await gw().http.post('/graphql').set('content-type', 'application/json').send('{"query": ');
  expect(response.status).toBe(400);
  expect(response.body.errors[0].message).toMatch(/not valid JSON/);
});

describe('alert rules: the payloads of their mutations', () => {
  it('createAlertRule answers a new rule with no evaluation and no silence, and updateAlertRule the silence set on it since', async () => {
    const RULE = 'id: alertRuleId name status evaluation { state } silence { silenceId } muted';
    const input = { name: `Payload rule ${randomUUID().slice(0, 8)}`, category: 'processing', metric: 'up', operator: 'GT', thresholds: [1], labels: { team: 'data' } };
    const created = ok(await graphql(gw(), `mutation($input: CreateAlertRuleInput!) { createAlertRule(input: $input) { message alertRule { ${RULE} } } }`, { input }));
    const rule = (created.createAlertRule as { alertRule: { id: string } }).alertRule;
    expect(rule).toEqual({ id: expect.stringMatching(UUID_PATTERN), name: input.name, status: 'DRAFT', evaluation: null, silence: null, muted: false });
    const silenced = ok(await createSilence(silenceInput({ alertId: rule.id })));
    const silenceId = (silenced.createSilence as { silence: { id: string } }).silence.id;
    const updated = ok(
      await graphql(gw(), `mutation($id: ID!, $input: UpdateAlertRuleInput!) { updateAlertRule(id: $id, input: $input) { alertRule { ${RULE} } } }`, {
        id: rule.id,
        input: { description: 'changed' },
      }),
    );
    expect((updated.updateAlertRule as { alertRule: unknown }).alertRule).toEqual({ ...rule, silence: { silenceId }, muted: true });
  });
});

describe('alert rules: typed labels, annotations and alert type', () => {
  it("lists a rule's labels and annotations as name/value pairs in the order written, and REST still answers them as the same objects", async () => {
    const name = `Typed labels ${randomUUID().slice(0, 8)}`;
    const created = await gw()
      .http.post('/alerts/v1/create')
      .send({
        name,
        manager: 'embedded',
        category: 'processing',
        labels: { team: 'data', component: 'obsrv' },
        annotations: { summary: 'Lag is high', runbook_url: 'https://runbooks.example.com/lag' },
        metadata: { queryBuilderContext: { metric: 'sum(gateway_info)', operator: 'gt', threshold: [0] } },
        context: { alertType: 'CUSTOM' },
      });
    expect(created.status).toBe(200);
    const id = created.body.result.id as string;
    const read = ok(await graphql(gw(), 'query($id: ID!) { alertRule(id: $id) { labels { name value } annotations { name value } alertType context } }', { id }));
    expect(read.alertRule).toEqual({
      labels: [
        { name: 'team', value: 'data' },
        { name: 'component', value: 'obsrv' },
      ],
      annotations: [
        { name: 'summary', value: 'Lag is high' },
        { name: 'runbook_url', value: 'https://runbooks.example.com/lag' },
      ],
      alertType: 'CUSTOM',
      context: { alertType: 'CUSTOM' },
    });
    const rest = await gw().http.get(`/alerts/v1/get/${id}`);
    expect(rest.text).toContain('"labels":{"team":"data","component":"obsrv"},"annotations":{"summary":"Lag is high","runbook_url":"https://runbooks.example.com/lag"},"metadata":');
  });
});
