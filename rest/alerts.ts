// REST entries for alerting (contract 4.6 and the original's extra /alerts/v1 routes). These take no
// request envelope: the body is the object itself. Responses use the standard envelope. Each entry
// runs a GraphQL operation; aliases in the selection give the original's field names.
import type {
  RestChannelFieldsFragment,
  RestCreateChannelMutation,
  RestCreateChannelMutationVariables,
  RestCreateMetricAliasMutation,
  RestCreateMetricAliasMutationVariables,
  RestCreateSilenceMutation,
  RestCreateSilenceMutationVariables,
  RestDeleteChannelMutation,
  RestDeleteChannelMutationVariables,
  RestDeleteMetricAliasMutation,
  RestDeleteMetricAliasMutationVariables,
  RestDeleteSilenceMutation,
  RestDeleteSilenceMutationVariables,
  RestListChannelsQuery,
  RestListChannelsQueryVariables,
  RestListMetricAliasesQuery,
  RestListMetricAliasesQueryVariables,
  RestListSilencesQuery,
  RestPublishChannelMutation,
  RestPublishChannelMutationVariables,
  RestListSilencesQueryVariables,
  RestReadChannelQuery,
  RestReadChannelQueryVariables,
  RestReadMetricAliasQuery,
  RestReadMetricAliasQueryVariables,
  RestReadSilenceQuery,
  RestReadSilenceQueryVariables,
  RestTestChannelMutation,
  RestTestChannelMutationVariables,
  RestUpdateChannelMutation,
  RestUpdateChannelMutationVariables,
  RestUpdateMetricAliasMutation,
  RestUpdateMetricAliasMutationVariables,
  RestUpdateSilenceMutation,
  RestUpdateSilenceMutationVariables,
  NotificationChannelConfigInput,
} from '../src/generated/rest-operations.js';
import { body, byId, criteriaOf, idPath, idResult, oneOrList, orderKeys, orderOptions, queryString, searchBody, statusAsList } from './alerting-requests.js';
import { withFragment } from './fragments.js';
import { afterOffset, inputSchema, offset, pageVariables, sameNames, toInput, type InputShape } from './input-shape.js';
import { namedValues, project, withoutNulls, type ResultShape } from './result-shape.js';
import type { Respelled } from './result-spelling.js';
import { defineEndpoint, pathParam } from './table.js';

// ---------------------------------------------------------------------------------------------
// Schemas

// Shape only, as GraphQL's input types declare it: lengths, emptiness, UUIDs and addresses are the
// service's rules (src/modules/alerts/rules.ts), one message on both transports.
const text = { type: 'string' };

/** A channel's config as GraphQL's, but labels as one object of names to text (GraphQL: name/value pairs). */
const CHANNEL_CONFIG: InputShape = {
  type: 'NotificationChannelConfigInput',
  rename: sameNames('recipientAddresses', 'subject', 'message', 'webhookUrl', 'channel'),
  own: { labels: { type: 'object', additionalProperties: text } },
};
const channelConfig = inputSchema(CHANNEL_CONFIG);
const CREATE_CHANNEL: InputShape = { type: 'CreateNotificationChannelInput', rename: sameNames('manager', 'name', 'type'), own: { config: channelConfig }, required: ['config'] };
// The console sends the manager back with every update (see UpdateNotificationChannelInput.manager).
const UPDATE_CHANNEL: InputShape = { type: 'UpdateNotificationChannelInput', rename: sameNames('name', 'type', 'manager'), own: { config: channelConfig } };

/**
 * A test's payload: the id of a stored channel, or a channel (CREATE_CHANNEL's fields, required then).
 * The console's channel page sends the record it read, so its UI flags and the record's own fields
 * are accepted and ignored, as the original does (the stored channel is what is tested).
 */
const TEST_PAYLOAD: InputShape = { ...CREATE_CHANNEL, own: { ...CREATE_CHANNEL.own, id: text }, ignored: ['error', 'status', 'created_by', 'updated_by', 'createdAt', 'updatedAt'] };
const testPayload = (() => {
  const { required, ...payload } = inputSchema(TEST_PAYLOAD);
  // Ajv's strict mode wants the properties a `required` names declared beside it.
  return { ...payload, if: { properties: { id: true }, required: ['id'] }, else: { properties: payload.properties, required } };
})();
const TEST_CHANNEL: InputShape = { type: 'TestNotificationChannelInput', rename: sameNames('message'), own: { payload: testPayload }, required: ['payload'] };

const CREATE_SILENCE: InputShape = { type: 'CreateSilenceInput', rename: sameNames('startDate', 'endDate', 'alertId', 'manager', 'comment') };
// startTime/endTime are the original's names for the same bounds (startDate/endDate win when both are given).
const UPDATE_SILENCE: InputShape = { type: 'UpdateSilenceInput', rename: { startTime: 'startDate', endTime: 'endDate', startDate: 'startDate', endDate: 'endDate' } };
const CREATE_METRIC_ALIAS: InputShape = { type: 'CreateMetricAliasInput', rename: sameNames('alias', 'component', 'metric', 'subComponent', 'context') };
const UPDATE_METRIC_ALIAS: InputShape = {
  type: 'UpdateMetricAliasInput',
  rename: sameNames('alias', 'component', 'metric', 'subComponent', 'context'),
  // null clears the sub-component, as GraphQL's nullable field does.
  own: { subComponent: { type: ['string', 'null'] } },
};

// ---------------------------------------------------------------------------------------------
// Mapping

const SILENCE_FIELDS = /* GraphQL */ `
  fragment RestSilenceFields on Silence {
    id: silenceId
    alert_id: alertId
    manager
    manager_silence_id: managerSilenceId
    start_time: startDate
    end_time: endDate
    state
    comment
    created_by: createdBy
    updated_by: updatedBy
    createdAt
    updatedAt
  }
`;

const ALIAS_FIELDS = /* GraphQL */ `
  fragment RestMetricAliasFields on MetricAlias {
    id: metricAliasId
    alias
    component
    subComponent
    metric
    context
    created_by: createdBy
    updated_by: updatedBy
    createdAt
    updatedAt
  }
`;

const CHANNEL_FIELDS = /* GraphQL */ `
  fragment RestChannelFields on NotificationChannel {
    channelId
    manager
    name
    type
    config {
      recipientAddresses
      subject
      message
      webhookUrl
      channel
      labels {
        name
        value
      }
    }
    status
    createdBy
    updatedBy
    createdAt
    updatedAt
  }
`;

/** A channel as the original answers it: a config without empty fields, labels as one object. */
const CHANNEL_RECORD: ResultShape<Respelled<RestChannelFieldsFragment>> = {
  id: 'channelId',
  manager: 'manager',
  name: 'name',
  type: 'type',
  config: ({ config: { labels, ...config } }) => ({ ...withoutNulls(config), ...(labels ? { labels: namedValues(labels) } : {}) }),
  status: 'status',
  created_by: 'createdBy',
  updated_by: 'updatedBy',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
};

/** The silence search's query string: the filter's fields and the page size as the operation's variables, the offset REST's own. */
const SILENCE_SEARCH = queryString<RestListSilencesQueryVariables>({
  type: withFragment(
    /* GraphQL */ `
      query RestListSilences($alertId: ID, $manager: AlertManagerKind, $first: Int, $after: String) {
        silences(filter: { alertId: $alertId, manager: $manager }, first: $first, after: $after) {
          totalCount
          nodes {
            ...RestSilenceFields
          }
        }
      }
    `,
    SILENCE_FIELDS,
  ),
  rename: { ...sameNames('alertId', 'manager'), limit: 'first' },
  own: { offset: { type: 'string', pattern: '^[0-9]{1,9}$' } },
});

/** The metric alias search: its filters and page size as the operation's variables, the offset REST's own. */
const ALIAS_SEARCH: InputShape = {
  type: withFragment(
    /* GraphQL */ `
      query RestListMetricAliases($filter: MetricAliasFilter, $first: Int, $after: String) {
        metricAliases(filter: $filter, first: $first, after: $after) {
          totalCount
          nodes {
            ...RestMetricAliasFields
          }
        }
      }
    `,
    ALIAS_FIELDS,
  ),
  rename: { filters: 'filter', limit: 'first' },
  own: { offset },
};

/** The console's channel search: its filters (a status alone or a list) and page size as the operation's variables, `options.order` and the offset REST's own. */
const CHANNEL_SEARCH: InputShape = {
  type: withFragment(
    /* GraphQL */ `
      query RestListChannels($filter: NotificationChannelFilter, $orderBy: [NotificationChannelOrder!], $first: Int, $after: String) {
        notificationChannels(filter: $filter, orderBy: $orderBy, first: $first, after: $after) {
          totalCount
          nodes {
            ...RestChannelFields
          }
        }
      }
    `,
    CHANNEL_FIELDS,
  ),
  rename: { filters: 'filter', limit: 'first' },
  own: { offset, options: orderOptions },
};

/** A channel's config as the contract spells it: GraphQL's, but labels as one object of names and values. */
type ChannelConfig = Omit<NotificationChannelConfigInput, 'labels'> & { labels?: Record<string, string> };

/** A config as GraphQL takes it: labels as name/value pairs. */
function configInput({ labels, ...config }: ChannelConfig): NotificationChannelConfigInput {
  return { ...toInput<NotificationChannelConfigInput>(CHANNEL_CONFIG, config), ...(labels ? { labels: Object.entries(labels).map(([name, value]) => ({ name, value })) } : {}) };
}

/** A create, update or test body's channel as GraphQL takes it (the manager's name as given: the service resolves it). */
function channelInput<T>(shape: InputShape, value: unknown): T {
  const config = (value as { config?: ChannelConfig }).config;
  return { ...toInput<T>(shape, value), ...(config ? { config: configInput(config) } : {}) };
}

/** The codes each entity's entries answer: their refusal of bad input, and what else they may answer. */
const SILENCE_CODES = { invalidInputCode: 'SILENCE_INVALID_INPUT', errorCodes: ['SILENCE_NOT_FOUND', 'SILENCE_CONFLICT', 'ALERT_MANAGER_FAILED'] } as const;
const METRIC_ALIAS_CODES = { invalidInputCode: 'METRIC_ALIAS_INVALID_INPUT', errorCodes: ['METRIC_ALIAS_ALREADY_EXISTS', 'METRIC_ALIAS_NOT_FOUND'] } as const;
const CHANNEL_CODES = {
  invalidInputCode: 'NOTIFICATION_CHANNEL_INVALID_INPUT',
  errorCodes: ['NOTIFICATION_CHANNEL_ALREADY_EXISTS', 'NOTIFICATION_CHANNEL_NOT_FOUND', 'NOTIFICATION_CHANNEL_CONFLICT', 'NOTIFICATION_CHANNEL_RETIRED', 'ALERT_MANAGER_FAILED', 'NOTIFICATION_FAILED'],
} as const;

// ---------------------------------------------------------------------------------------------

export const alertEndpoints = [
  // Silences

  defineEndpoint<RestCreateSilenceMutation, RestCreateSilenceMutationVariables>({
    method: 'POST',
    path: '/alerts/v1/silence/create',
    apiId: 'api.alert.silence.create',
    summary: 'Silence an alert at an alert manager (replacing its previous silence)',
    ...SILENCE_CODES,
    bodySchema: inputSchema(CREATE_SILENCE),
    operation: /* GraphQL */ `
      mutation RestCreateSilence($input: CreateSilenceInput!) {
        createSilence(input: $input) {
          silence {
            id: silenceId
          }
        }
      }
    `,
    variables: (input) => ({ input: toInput(CREATE_SILENCE, input.body) }),
    result: idResult('createSilence', 'silence'),
  }),

  defineEndpoint<RestListSilencesQuery, RestListSilencesQueryVariables>({
    method: 'GET',
    path: '/alerts/v1/silence/search',
    apiId: 'api.alert.silence.list',
    summary: 'List silences, newest first',
    ...SILENCE_CODES,
    querySchema: SILENCE_SEARCH.schema,
    operation: SILENCE_SEARCH.shape.type,
    variables: (input) => ({ alertId: null, manager: null, first: null, ...SILENCE_SEARCH.input(input.query), after: afterOffset(Number(input.query.offset ?? 0)) }),
    // `transformedSilences` is the original's name for the list.
    result: (data) => {
      const found = data.silences;
      return { transformedSilences: found.nodes, count: found.totalCount };
    },
  }),

  defineEndpoint<RestReadSilenceQuery, RestReadSilenceQueryVariables>({
    method: 'GET',
    path: '/alerts/v1/silence/get/:id',
    apiId: 'api.alert.silence.get',
    summary: 'Read a silence',
    ...SILENCE_CODES,
    ...byId,
    operation: withFragment(
      /* GraphQL */ `
        query RestReadSilence($id: ID!) {
          silence(id: $id) {
            ...RestSilenceFields
          }
        }
      `,
      SILENCE_FIELDS,
    ),
    result: (data) => data.silence,
  }),

  defineEndpoint<RestUpdateSilenceMutation, RestUpdateSilenceMutationVariables>({
    method: 'PATCH',
    path: '/alerts/v1/silence/update/:id',
    apiId: 'api.alert.silence.update',
    summary: 'Move the start or end of a silence',
    ...SILENCE_CODES,
    pathSchema: idPath,
    bodySchema: inputSchema(UPDATE_SILENCE),
    operation: /* GraphQL */ `
      mutation RestUpdateSilence($id: ID!, $input: UpdateSilenceInput!) {
        updateSilence(id: $id, input: $input) {
          silence {
            id: silenceId
          }
        }
      }
    `,
    variables: (input) => ({ id: pathParam(input, 'id'), input: toInput(UPDATE_SILENCE, input.body) }),
    result: idResult('updateSilence', 'silence'),
  }),

  defineEndpoint<RestDeleteSilenceMutation, RestDeleteSilenceMutationVariables>({
    method: 'DELETE',
    path: '/alerts/v1/silence/delete/:id',
    apiId: 'api.alert.silence.delete',
    summary: 'End a silence at its manager and delete it',
    ...SILENCE_CODES,
    ...byId,
    operation: /* GraphQL */ `
      mutation RestDeleteSilence($id: ID!) {
        deleteSilence(id: $id) {
          id
        }
      }
    `,
    result: (data) => ({ id: data.deleteSilence.id }),
  }),

  // Metric aliases

  defineEndpoint<RestCreateMetricAliasMutation, RestCreateMetricAliasMutationVariables>({
    method: 'POST',
    path: '/alerts/v1/metric/alias/create',
    apiId: 'api.metric.add',
    summary: 'Create a metric alias (a named PromQL expression)',
    ...METRIC_ALIAS_CODES,
    // context is any JSON here, as GraphQL's: the service says it must be an object.
    bodySchema: inputSchema(CREATE_METRIC_ALIAS),
    operation: /* GraphQL */ `
      mutation RestCreateMetricAlias($input: CreateMetricAliasInput!) {
        createMetricAlias(input: $input) {
          metricAlias {
            id: metricAliasId
          }
        }
      }
    `,
    variables: (input) => ({ input: toInput(CREATE_METRIC_ALIAS, input.body) }),
    result: idResult('createMetricAlias', 'metricAlias'),
  }),

  defineEndpoint<RestListMetricAliasesQuery, RestListMetricAliasesQueryVariables>({
    method: 'POST',
    path: '/alerts/v1/metric/alias/search',
    apiId: 'api.metric.list',
    summary: 'List metric aliases, newest first',
    ...METRIC_ALIAS_CODES,
    bodySchema: searchBody(inputSchema(ALIAS_SEARCH)),
    operation: ALIAS_SEARCH.type,
    variables: (input) => {
      const search = criteriaOf<{ offset?: number }>(input.body);
      const given = toInput<RestListMetricAliasesQueryVariables>(ALIAS_SEARCH, search);
      return pageVariables(given, search.offset);
    },
    result: (data) => {
      const found = data.metricAliases;
      return { metrics: found.nodes, count: found.totalCount };
    },
  }),

  defineEndpoint<RestReadMetricAliasQuery, RestReadMetricAliasQueryVariables>({
    method: 'GET',
    path: '/alerts/v1/metric/alias/get/:id',
    apiId: 'api.metric.get',
    summary: 'Read a metric alias',
    ...METRIC_ALIAS_CODES,
    ...byId,
    operation: withFragment(
      /* GraphQL */ `
        query RestReadMetricAlias($id: ID!) {
          metricAlias(id: $id) {
            ...RestMetricAliasFields
          }
        }
      `,
      ALIAS_FIELDS,
    ),
    result: (data) => data.metricAlias,
  }),

  defineEndpoint<RestUpdateMetricAliasMutation, RestUpdateMetricAliasMutationVariables>({
    method: 'PATCH',
    path: '/alerts/v1/metric/alias/update/:id',
    apiId: 'api.metric.update',
    summary: 'Change a metric alias',
    ...METRIC_ALIAS_CODES,
    pathSchema: idPath,
    bodySchema: inputSchema(UPDATE_METRIC_ALIAS),
    operation: /* GraphQL */ `
      mutation RestUpdateMetricAlias($id: ID!, $input: UpdateMetricAliasInput!) {
        updateMetricAlias(id: $id, input: $input) {
          metricAlias {
            id: metricAliasId
          }
        }
      }
    `,
    // Only the keys given reach GraphQL, so an absent subComponent or context is left as it is.
    variables: (input) => ({ id: pathParam(input, 'id'), input: toInput(UPDATE_METRIC_ALIAS, input.body) }),
    result: idResult('updateMetricAlias', 'metricAlias'),
  }),

  defineEndpoint<RestDeleteMetricAliasMutation, RestDeleteMetricAliasMutationVariables>({
    method: 'DELETE',
    path: '/alerts/v1/metric/alias/delete/:id',
    apiId: 'api.metric.remove',
    summary: 'Delete a metric alias',
    ...METRIC_ALIAS_CODES,
    ...byId,
    operation: /* GraphQL */ `
      mutation RestDeleteMetricAlias($id: ID!) {
        deleteMetricAlias(id: $id) {
          id
        }
      }
    `,
    result: (data) => ({ id: data.deleteMetricAlias.id }),
  }),

  // Notification channels

  defineEndpoint<RestCreateChannelMutation, RestCreateChannelMutationVariables>({
    method: 'POST',
    path: '/alerts/v1/notifications/create',
    apiId: 'api.alert.notification.create',
    summary: 'Store a notification channel as a draft (publish creates it at its manager)',
    ...CHANNEL_CODES,
    bodySchema: inputSchema(CREATE_CHANNEL),
    operation: /* GraphQL */ `
      mutation RestCreateChannel($input: CreateNotificationChannelInput!) {
        createNotificationChannel(input: $input) {
          channel {
            id: channelId
          }
        }
      }
    `,
    variables: (input) => ({ input: channelInput(CREATE_CHANNEL, input.body) }),
    result: idResult('createNotificationChannel', 'channel'),
  }),

  defineEndpoint<RestPublishChannelMutation, RestPublishChannelMutationVariables>({
    method: 'GET',
    path: '/alerts/v1/notifications/publish/:id',
    apiId: 'api.alert.notification.publish',
    summary: 'Publish a draft notification channel: create it at its manager and make it live',
    ...CHANNEL_CODES,
    ...byId,
    operation: /* GraphQL */ `
      mutation RestPublishChannel($id: ID!) {
        publishNotificationChannel(id: $id) {
          channel {
            id: channelId
          }
        }
      }
    `,
    // The original's answer: the id and the word "published".
    result: (data) => ({ id: data.publishNotificationChannel.channel.id, status: 'published' }),
  }),

  defineEndpoint<RestListChannelsQuery, RestListChannelsQueryVariables>({
    method: 'POST',
    path: '/alerts/v1/notifications/search',
    apiId: 'api.alert.notification.list',
    summary: 'List notification channels, newest first unless options.order says otherwise',
    ...CHANNEL_CODES,
    bodySchema: searchBody(oneOrList(inputSchema(CHANNEL_SEARCH), 'filters', 'status')),
    operation: CHANNEL_SEARCH.type,
    variables: (input) => {
      const search = statusAsList(criteriaOf<{ offset?: number; options?: { order?: string[][] } }>(input.body));
      const given = toInput<RestListChannelsQueryVariables>(CHANNEL_SEARCH, search);
      return { ...pageVariables(given, search.offset), orderBy: orderKeys('NotificationChannelOrderField', search.options?.order) };
    },
    result: (data) => {
      const found = data.notificationChannels;
      return { notifications: found.nodes.map((channel) => project(CHANNEL_RECORD, channel)), count: found.totalCount };
    },
  }),

  defineEndpoint<RestReadChannelQuery, RestReadChannelQueryVariables>({
    method: 'GET',
    path: '/alerts/v1/notifications/get/:id',
    apiId: 'api.alert.notification.get',
    summary: 'Read a notification channel',
    ...CHANNEL_CODES,
    ...byId,
    operation: withFragment(
      /* GraphQL */ `
        query RestReadChannel($id: ID!) {
          notificationChannel(id: $id) {
            ...RestChannelFields
          }
        }
      `,
      CHANNEL_FIELDS,
    ),
    result: (data) => project(CHANNEL_RECORD, data.notificationChannel!),
  }),

  defineEndpoint<RestUpdateChannelMutation, RestUpdateChannelMutationVariables>({
    method: 'PATCH',
    path: '/alerts/v1/notifications/update/:id',
    apiId: 'api.alert.notification.update',
    summary: 'Change a notification channel (a live one at its manager first; it stays live)',
    ...CHANNEL_CODES,
    pathSchema: idPath,
    bodySchema: inputSchema(UPDATE_CHANNEL),
    operation: /* GraphQL */ `
      mutation RestUpdateChannel($id: ID!, $input: UpdateNotificationChannelInput!) {
        updateNotificationChannel(id: $id, input: $input) {
          channel {
            id: channelId
          }
        }
      }
    `,
    variables: (input) => ({ id: pathParam(input, 'id'), input: channelInput(UPDATE_CHANNEL, input.body) }),
    result: idResult('updateNotificationChannel', 'channel'),
  }),

  defineEndpoint<RestDeleteChannelMutation, RestDeleteChannelMutationVariables>({
    method: 'DELETE',
    path: '/alerts/v1/notifications/delete/:id',
    apiId: 'api.alert.notification.delete',
    summary: 'Retire a notification channel: remove it from its manager (when live) and keep the record, retired',
    ...CHANNEL_CODES,
    ...byId,
    operation: /* GraphQL */ `
      mutation RestDeleteChannel($id: ID!) {
        deleteNotificationChannel(id: $id) {
          id
        }
      }
    `,
    result: (data) => ({ id: data.deleteNotificationChannel.id }),
  }),

  defineEndpoint<RestTestChannelMutation, RestTestChannelMutationVariables>({
    method: 'POST',
    path: '/alerts/v1/notifications/test',
    apiId: 'api.alert.notification.test',
    summary: 'Send a test message to a stored channel (payload.id) or to the channel described in payload',
    ...CHANNEL_CODES,
    bodySchema: inputSchema(TEST_CHANNEL),
    operation: /* GraphQL */ `
      mutation RestTestChannel($input: TestNotificationChannelInput!) {
        testNotificationChannel(input: $input) {
          status
          transport
          response
          channelId
        }
      }
    `,
    variables: (input) => {
      const { message, payload } = body<{ message?: string; payload: { id?: string } }>(input);
      return { input: { message: message ?? null, channelId: payload.id ?? null, channel: payload.id ? null : channelInput(CREATE_CHANNEL, payload) } };
    },
    result: (data) => {
      const sent = data.testNotificationChannel;
      return { status: sent.status, ...(sent.channelId ? { id: sent.channelId } : {}), transport: sent.transport, response: sent.response };
    },
  }),
];
