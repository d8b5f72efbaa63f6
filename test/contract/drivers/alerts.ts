// The two transports of the alerting scenarios, answering in the REST contract's spelling: the
// original's field names (alert_id, start_time, created_by...), managers, types and states in lower
// case, a channel's config without its empty fields. /alerts/v1 takes no request envelope. GraphQL
// is sent the enum values in capitals, and its mutations' payloads are read down to `{id}`.
import { graphql } from '../../support/api.js';
import type { ChannelBody, ChannelConfig } from '../../support/alerting.js';
import type { TestGateway } from '../../support/gateway.js';
import type { Channel, ChannelsDriver, TestReport } from '../alert-channels.js';
import type { MetricAlias, MetricAliasesDriver } from '../alert-metric-aliases.js';
import type { Silence, SilencesDriver } from '../alert-silences.js';
import { graphqlServiceOutcome, graphqlTypedOutcome, restOutcome, type Outcome } from '../harness.js';

export type AlertsDriver = SilencesDriver & MetricAliasesDriver & ChannelsDriver;

export function restAlertsDriver(gw: TestGateway): AlertsDriver {
  const at = (path: string, id: string) => `/alerts/v1/${path}/${encodeURIComponent(id)}`;
  return {
    typeRefusal: 'NOTIFICATION_CHANNEL_INVALID_INPUT',
    createSilence: async (silence, on = gw) => restOutcome(await on.http.post('/alerts/v1/silence/create').send(silence)),
    readSilence: async (id) => restOutcome(await gw.http.get(at('silence/get', id))),
    listSilences: async (filter = {}) => restOutcome(await gw.http.get('/alerts/v1/silence/search').query(filter)),
    updateSilence: async (id, changes) => restOutcome(await gw.http.patch(at('silence/update', id)).send(changes)),
    deleteSilence: async (id) => restOutcome(await gw.http.delete(at('silence/delete', id))),

    createAlias: async (alias) => restOutcome(await gw.http.post('/alerts/v1/metric/alias/create').send(alias)),
    readAlias: async (id) => restOutcome(await gw.http.get(at('metric/alias/get', id))),
    listAliases: async (search) => restOutcome(await gw.http.post('/alerts/v1/metric/alias/search').send({ request: search })),
    updateAlias: async (id, changes) => restOutcome(await gw.http.patch(at('metric/alias/update', id)).send(changes)),
    deleteAlias: async (id) => restOutcome(await gw.http.delete(at('metric/alias/delete', id))),

    createChannel: async (channel) => restOutcome(await gw.http.post('/alerts/v1/notifications/create').send(channel)),
    readChannel: async (id) => restOutcome(await gw.http.get(at('notifications/get', id))),
    listChannels: async (filters, order) => restOutcome(await gw.http.post('/alerts/v1/notifications/search').send({ request: { filters, ...(order ? { options: { order } } : {}) } })),
    publishChannel: async (id) => restOutcome(await gw.http.get(at('notifications/publish', id))),
    updateChannel: async (id, changes) => restOutcome(await gw.http.patch(at('notifications/update', id)).send(changes)),
    deleteChannel: async (id) => restOutcome(await gw.http.delete(at('notifications/delete', id))),
    testChannel: async (request) => restOutcome(await gw.http.post('/alerts/v1/notifications/test').send(request)),
  };
}

// ---------------------------------------------------------------------------------------------
// GraphQL

const SILENCE = 'id: silenceId alertId manager managerSilenceId startDate endDate state comment createdBy updatedBy createdAt updatedAt';
const ALIAS = 'id: metricAliasId alias component subComponent metric context createdBy updatedBy createdAt updatedAt';
const CHANNEL = 'id: channelId manager name type status config { recipientAddresses subject message webhookUrl channel labels { name value } } createdBy updatedBy createdAt updatedAt';

interface GraphQLRecord {
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
}

interface GraphQLSilence extends GraphQLRecord {
  id: string;
  alertId: string;
  manager: string;
  managerSilenceId: string | null;
  startDate: string;
  endDate: string;
  state: string;
  comment: string;
}

type GraphQLAlias = Omit<MetricAlias, 'created_by' | 'updated_by'> & GraphQLRecord;

interface GraphQLChannel extends GraphQLRecord {
  id: string;
  manager: string;
  name: string;
  type: string;
  status: string;
  config: Record<Exclude<keyof ChannelConfig, 'labels'>, string | null> & { labels: { name: string; value: string }[] | null };
}

/** The REST spelling of an order field, as GraphQL's enum names it. */
const ORDER_FIELD: Record<string, string> = { createdAt: 'CREATED_AT', updatedAt: 'UPDATED_AT', name: 'NAME', status: 'STATUS', type: 'TYPE' };

interface Connection<T> {
  nodes: T[];
  totalCount: number;
}

const upper = (value: string | undefined) => value?.toUpperCase();
const lower = (value: string) => value.toLowerCase();

function authors({ createdBy, updatedBy, createdAt, updatedAt }: GraphQLRecord) {
  return { created_by: createdBy, updated_by: updatedBy, createdAt, updatedAt };
}

function asSilence(silence: GraphQLSilence): Silence {
  return {
    id: silence.id,
    alert_id: silence.alertId,
    manager: lower(silence.manager),
    manager_silence_id: silence.managerSilenceId,
    start_time: silence.startDate,
    end_time: silence.endDate,
    state: lower(silence.state),
    comment: silence.comment,
    ...authors(silence),
  };
}

function asAlias({ createdBy, updatedBy, createdAt, updatedAt, ...alias }: GraphQLAlias): MetricAlias {
  return { ...alias, ...authors({ createdBy, updatedBy, createdAt, updatedAt }) };
}

function asChannel(channel: GraphQLChannel): Channel {
  const { labels, ...config } = channel.config;
  return {
    id: channel.id,
    manager: lower(channel.manager),
    name: channel.name,
    type: lower(channel.type),
    status: lower(channel.status),
    config: { ...Object.fromEntries(Object.entries(config).filter(([, value]) => value !== null)), ...(labels ? { labels: Object.fromEntries(labels.map((l) => [l.name, l.value])) } : {}) },
    ...authors(channel),
  };
}

/** A config as GraphQL's input takes it (labels as name/value pairs). */
function configInput(config: ChannelConfig | undefined) {
  if (!config?.labels) return config;
  const { labels, ...rest } = config;
  return { ...rest, labels: Object.entries(labels).map(([name, value]) => ({ name, value })) };
}

/** A channel as GraphQL's input takes it: the manager's name as given (the gateway resolves names in any case), the type's enum value. */
function channelInput(channel: Partial<ChannelBody>) {
  return { ...channel, type: upper(channel.type), ...(channel.config ? { config: configInput(channel.config) } : {}) };
}

/** The outcome's value made into the contract's spelling. */
function mapped<T, U>(outcome: Outcome<T>, map: (value: T) => U): Outcome<U> {
  return outcome.ok ? { ok: true, value: map(outcome.value) } : outcome;
}

export function graphqlAlertsDriver(gw: TestGateway): AlertsDriver {
  /** Runs `operation` and reads the field of the same name. */
  const call = async <T>(field: string, operation: string, variables: Record<string, unknown>, on = gw, outcome = graphqlServiceOutcome<T>) => outcome(await graphql(on, operation, variables), field);
  /** A mutation whose payload holds the record changed under `record`: `{id}` of it. */
  const idOf = async (field: string, record: string, operation: string, variables: Record<string, unknown>, on = gw) =>
    mapped(await call<Record<string, { id: string }>>(field, operation, variables, on), (payload) => ({ id: payload[record]!.id }));
  const deleted = async (field: string, id: string) => mapped(await call<{ id: string }>(field, `mutation($id: ID!) { ${field}(id: $id) { id } }`, { id }), ({ id }) => ({ id }));

  return {
    typeRefusal: 'BAD_USER_INPUT',
    createSilence: async (silence, on) =>
      idOf(
        'createSilence',
        'silence',
        'mutation($input: CreateSilenceInput!) { createSilence(input: $input) { silence { id: silenceId } } }',
        { input: { ...silence, manager: upper(silence.manager) } },
        on,
      ),
    readSilence: async (id) => mapped(await call<GraphQLSilence>('silence', `query($id: ID!) { silence(id: $id) { ${SILENCE} } }`, { id }), asSilence),
    listSilences: async ({ alertId, manager, limit } = {}) =>
      mapped(
        await call<Connection<GraphQLSilence>>('silences', `query($filter: SilenceFilter, $first: Int) { silences(filter: $filter, first: $first) { totalCount nodes { ${SILENCE} } } }`, {
          filter: { alertId, manager: upper(manager) },
          first: limit === undefined ? undefined : Number(limit),
        }),
        ({ nodes, totalCount }) => ({ transformedSilences: nodes.map(asSilence), count: totalCount }),
      ),
    updateSilence: async (id, input) =>
      idOf('updateSilence', 'silence', 'mutation($id: ID!, $input: UpdateSilenceInput!) { updateSilence(id: $id, input: $input) { silence { id: silenceId } } }', { id, input }),
    deleteSilence: async (id) => deleted('deleteSilence', id),

    createAlias: async (input) =>
      idOf('createMetricAlias', 'metricAlias', 'mutation($input: CreateMetricAliasInput!) { createMetricAlias(input: $input) { metricAlias { id: metricAliasId } } }', { input }),
    readAlias: async (id) => mapped(await call<GraphQLAlias>('metricAlias', `query($id: ID!) { metricAlias(id: $id) { ${ALIAS} } }`, { id }), asAlias),
    listAliases: async ({ filters, limit }) =>
      mapped(
        await call<Connection<GraphQLAlias>>('metricAliases', `query($filter: MetricAliasFilter, $first: Int) { metricAliases(filter: $filter, first: $first) { totalCount nodes { ${ALIAS} } } }`, {
          filter: filters,
          first: limit,
        }),
        ({ nodes, totalCount }) => ({ metrics: nodes.map(asAlias), count: totalCount }),
      ),
    updateAlias: async (id, input) =>
      idOf('updateMetricAlias', 'metricAlias', 'mutation($id: ID!, $input: UpdateMetricAliasInput!) { updateMetricAlias(id: $id, input: $input) { metricAlias { id: metricAliasId } } }', {
        id,
        input,
      }),
    deleteAlias: async (id) => deleted('deleteMetricAlias', id),

    createChannel: async (channel) =>
      idOf('createNotificationChannel', 'channel', 'mutation($input: CreateNotificationChannelInput!) { createNotificationChannel(input: $input) { channel { id: channelId } } }', {
        input: channelInput(channel),
      }),
    readChannel: async (id) => mapped(await call<GraphQLChannel>('notificationChannel', `query($id: ID!) { notificationChannel(id: $id) { ${CHANNEL} } }`, { id }), asChannel),
    listChannels: async ({ manager, type, status, id, name }, order) =>
      mapped(
        await call<Connection<GraphQLChannel>>(
          'notificationChannels',
          `query($filter: NotificationChannelFilter, $orderBy: [NotificationChannelOrder!]) { notificationChannels(filter: $filter, orderBy: $orderBy) { totalCount nodes { ${CHANNEL} } } }`,
          {
            filter: { manager: upper(manager), type: upper(type), id, name, status: status === undefined ? undefined : (typeof status === 'string' ? [status] : status).map(upper) },
            orderBy: order?.map(([field, direction]) => ({ field: ORDER_FIELD[field] ?? field, order: direction.toUpperCase() })),
          },
          gw,
          graphqlTypedOutcome,
        ),
        ({ nodes, totalCount }) => ({ notifications: nodes.map(asChannel), count: totalCount }),
      ),
    publishChannel: async (id) =>
      mapped(
        await call<{ channel: { id: string } }>('publishNotificationChannel', 'mutation($id: ID!) { publishNotificationChannel(id: $id) { channel { id: channelId } } }', { id }),
        ({ channel }) => ({
          id: channel.id,
          status: 'published',
        }),
      ),
    updateChannel: async (id, changes) =>
      idOf('updateNotificationChannel', 'channel', 'mutation($id: ID!, $input: UpdateNotificationChannelInput!) { updateNotificationChannel(id: $id, input: $input) { channel { id: channelId } } }', {
        id,
        input: { ...changes, type: upper(changes.type), ...(changes.config ? { config: configInput(changes.config) } : {}) },
      }),
    deleteChannel: async (id) => deleted('deleteNotificationChannel', id),
    testChannel: async ({ message, payload }) => {
      const input = { message, ...('id' in payload ? { channelId: payload.id } : { channel: channelInput(payload) }) };
      const outcome = await call<{ status: string; transport: string; response: string; channelId: string | null }>(
        'testNotificationChannel',
        'mutation($input: TestNotificationChannelInput!) { testNotificationChannel(input: $input) { status transport response channelId } }',
        { input },
      );
      return mapped(outcome, ({ status, channelId, transport, response }): TestReport => ({ status, ...(channelId ? { id: channelId } : {}), transport, response }));
    },
  };
}
