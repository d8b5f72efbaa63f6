// REST entries for alert rules: the original's /alerts/v1 create, search, get, update, publish and
// delete routes, in the shape its console sends and reads. No request envelope; responses use the
// standard envelope. The original's payload keeps the condition in
// `metadata.queryBuilderContext` ({metric | metricAlias, operator, threshold}), the evaluation
// interval in `frequency`, the pending period in `interval` and the channels in `notification.channels`.
import type {
  RestCreateAlertRuleMutation,
  RestCreateAlertRuleMutationVariables,
  RestDeleteAlertRuleMutation,
  RestDeleteAlertRuleMutationVariables,
  RestDeleteAlertRulesMutation,
  RestDeleteAlertRulesMutationVariables,
  RestPrometheusRulesQuery,
  RestPrometheusRulesQueryVariables,
  RestPublishAlertRuleMutation,
  RestPublishAlertRuleMutationVariables,
  RestAlertRuleFieldsFragment,
  RestReadAlertRuleQuery,
  RestReadAlertRuleQueryVariables,
  RestSearchAlertRulesQuery,
  RestSearchAlertRulesQueryVariables,
  RestUpdateAlertRuleMutation,
  RestUpdateAlertRuleMutationVariables,
} from '../src/generated/rest-operations.js';
import { body, byId, idPath, idResult, oneOrList, orderKeys, orderOptions, queryString, statusAsList } from './alerting-requests.js';
import { domainValues, ENUMS } from './enum-names.js';
import { withFragment } from './fragments.js';
import { enumValueOf, inputSchema, offset, pageVariables, sameNames, toInput, type InputShape, type Rename } from './input-shape.js';
import { namedValues, project, type ResultShape } from './result-shape.js';
import type { Respelled } from './result-spelling.js';
import { defineEndpoint, pathParam, requestOf } from './table.js';

// ---------------------------------------------------------------------------------------------
// Schemas

/** The codes the rule entries answer: their refusal of bad input, and what else they may answer. */
const RULE_CODES = { invalidInputCode: 'ALERT_RULE_INVALID_INPUT', errorCodes: ['ALERT_RULE_NOT_FOUND', 'ALERT_RULE_ALREADY_EXISTS', 'ALERT_MANAGER_FAILED'] } as const;
const text = { type: 'string' };
// The console's form sends a threshold as a number or as the text typed in, alone or as a list.
const threshold = { type: ['number', 'string'] };

/** The console's condition: kept whole in `metadata`, and its metric, operator and thresholds given to GraphQL's own fields. */
const queryBuilderContext = (required: string[]) => ({
  type: 'object',
  properties: {
    metric: text,
    metricAlias: text,
    operator: { type: 'string', enum: domainValues(ENUMS.AlertRuleOperator) },
    threshold: { anyOf: [threshold, { type: 'array', items: threshold }] },
  },
  required,
  // The console keeps its form's other fields here (id, subComponent, threshold_from...); they are kept as given.
  additionalProperties: true,
});

/**
 * A rule in the original's names: GraphQL's rule input (create: its required fields), the condition in
 * `metadata.queryBuilderContext` (create: required, with its operator and threshold), the channels in
 * `notification.channels`. Lengths, emptiness, label names, durations and thresholds are the service's
 * rules (src/modules/alert-rules/rules.ts), one message on both transports.
 */
function ruleShape(type: 'CreateAlertRuleInput' | 'UpdateAlertRuleInput'): InputShape {
  const creating = type === 'CreateAlertRuleInput';
  return {
    type,
    rename: {
      ...sameNames('name', 'manager', 'description', 'category', 'severity', 'labels', 'annotations', 'metadata', 'context'),
      frequency: 'evaluationInterval',
      interval: 'pendingPeriod',
    },
    own: {
      metadata: {
        type: 'object',
        properties: { queryBuilderContext: queryBuilderContext(creating ? ['operator', 'threshold'] : []) },
        required: creating ? ['queryBuilderContext'] : [],
        additionalProperties: true,
      },
      notification: {
        type: 'object',
        properties: { channels: { type: 'array', items: { type: ['string', 'null'] } } },
        additionalProperties: true,
      },
    },
    required: creating ? ['metadata'] : [],
  };
}
const CREATE_RULE = ruleShape('CreateAlertRuleInput');
const UPDATE_RULE = ruleShape('UpdateAlertRuleInput');

/** The console's filters: GraphQL's AlertRuleFilter, with `context.alertType` for its alertType (and a status alone or a list). */
const RULE_FILTER: Rename = { ...sameNames('status', 'id', 'name', 'category', 'severity', 'manager'), 'context.alertType': 'alertType' };

// ---------------------------------------------------------------------------------------------
// Mapping

const RULE_FIELDS = /* GraphQL */ `
  fragment RestAlertRuleFields on AlertRule {
    alertRuleId
    name
    manager
    status
    description
    metric
    operator
    thresholds
    expression
    severity
    category
    evaluationInterval
    pendingPeriod
    labels {
      name
      value
    }
    annotations {
      name
      value
    }
    metadata
    channelIds
    context
    evaluation {
      state
      activeSince
      firingSince
      lastEvaluatedAt
      nextEvaluationAt
      lastError
      alerts {
        labels {
          name
          value
        }
        value
        state
        activeSince
      }
    }
    silence {
      silenceId
      endDate
    }
    muted
    createdBy
    updatedBy
    createdAt
    updatedAt
  }
`;

/** A search's criteria: the filters and page size as the operation's variables, the order and offset REST's own. */
const SEARCH: InputShape = {
  type: withFragment(
    /* GraphQL */ `
      query RestSearchAlertRules($filter: AlertRuleFilter, $orderBy: [AlertRuleOrder!], $first: Int, $after: String) {
        alertRules(filter: $filter, orderBy: $orderBy, first: $first, after: $after) {
          totalCount
          nodes {
            ...RestAlertRuleFields
          }
        }
      }
    `,
    RULE_FIELDS,
  ),
  rename: { filters: { field: 'filter', rename: RULE_FILTER }, limit: 'first' },
  own: { offset, options: orderOptions },
};

const DELETE_RULES: InputShape = {
  type: /* GraphQL */ `
    mutation RestDeleteAlertRules($filter: AlertRuleFilter!) {
      deleteAlertRules(filter: $filter) {
        ids
        count
      }
    }
  `,
  rename: { filters: { field: 'filter', rename: RULE_FILTER } },
};

const DELETE_RULE = queryString<{ hardDelete?: boolean }>({
  type: /* GraphQL */ `
    mutation RestDeleteAlertRule($id: ID!, $hardDelete: Boolean) {
      deleteAlertRule(id: $id, hardDelete: $hardDelete) {
        id
      }
    }
  `,
  rename: sameNames('hardDelete'),
});

const PROMETHEUS_RULES = queryString<RestPrometheusRulesQueryVariables>({
  type: /* GraphQL */ `
    query RestPrometheusRules($manager: AlertManagerKind) {
      prometheusRules(manager: $manager)
    }
  `,
  rename: sameNames('manager'),
});

type Row = Record<string, unknown>;

interface RuleBody {
  name?: string;
  manager?: string;
  description?: string;
  category?: string;
  severity?: string;
  frequency?: string;
  interval?: string;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  metadata?: { queryBuilderContext?: { metric?: string; metricAlias?: string; operator?: string; threshold?: number | string | (number | string)[] } & Row } & Row;
  notification?: { channels?: (string | null)[] } & Row;
  context?: Row;
}

/**
 * Text the console's form holds, as the number it spells. Any other text goes to GraphQL as it is:
 * its Float refuses it, naming the value and `input.thresholds[i]`, as it does for a GraphQL client.
 */
const asNumber = (value: number | string) => (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value);

/** The original's payload as GraphQL's rule input; only what the body gives (an update changes only that). */
function ruleInput<T>(shape: InputShape, body: RuleBody): T {
  const condition = body.metadata?.queryBuilderContext;
  const threshold = condition?.threshold;
  const entries = {
    metric: condition?.metric,
    metricAlias: condition?.metric === undefined ? condition?.metricAlias : undefined,
    operator: condition?.operator === undefined ? undefined : enumValueOf('AlertRuleOperator', condition.operator),
    thresholds: threshold === undefined ? undefined : (Array.isArray(threshold) ? threshold : [threshold]).map(asNumber),
    // The console sends `[undefined]` when no channel was chosen; those holes are dropped.
    channelIds: body.notification?.channels?.filter((id): id is string => typeof id === 'string' && id !== ''),
  };
  return { ...toInput<T>(shape, body), ...Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined)) };
}

type Rule = Respelled<RestAlertRuleFieldsFragment>;
type Evaluation = NonNullable<Rule['evaluation']>;

const ALERT: ResultShape<Evaluation['alerts'][number]> = { labels: (alert) => namedValues(alert.labels), value: 'value', state: 'state', activeAt: 'activeSince' };

/** The evaluator's state and its alerts, as GraphQL gives them; lastError only when there is one. */
const ALERT_DATA: ResultShape<Evaluation> = {
  state: 'state',
  activeAt: 'activeSince',
  firingSince: 'firingSince',
  lastEvaluation: 'lastEvaluatedAt',
  nextEvaluation: 'nextEvaluationAt',
  lastError: (evaluation) => evaluation.lastError || undefined,
  alerts: (evaluation) => evaluation.alerts.map((alert) => project(ALERT, alert)),
};

/** A rule as the original's console reads it: `notification.channels`, `alertData` (when evaluated) and `silenceState`. */
const RULE_RECORD: ResultShape<Rule> = {
  id: 'alertRuleId',
  name: 'name',
  manager: 'manager',
  status: 'status',
  description: 'description',
  metric: 'metric',
  operator: 'operator',
  threshold: 'thresholds',
  expression: 'expression',
  severity: 'severity',
  category: 'category',
  frequency: 'evaluationInterval',
  interval: 'pendingPeriod',
  labels: (rule) => namedValues(rule.labels),
  annotations: (rule) => namedValues(rule.annotations),
  metadata: 'metadata',
  context: 'context',
  created_by: 'createdBy',
  updated_by: 'updatedBy',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  notification: { channels: 'channelIds' },
  alertData: (rule) => (rule.evaluation ? project(ALERT_DATA, rule.evaluation) : undefined),
  // endTime in epoch ms, as the original; DateTime values come here as Date objects (the schema runs in process).
  silenceState: ({ silence, muted }) =>
    silence ? { state: muted ? 'muted' : 'unmuted', silenceId: silence.silenceId, ...(muted ? { endTime: silence.endDate.getTime() } : {}) } : { state: 'unmuted', silenceId: '' },
};

// ---------------------------------------------------------------------------------------------

export const alertRuleEndpoints = [
  defineEndpoint<RestCreateAlertRuleMutation, RestCreateAlertRuleMutationVariables>({
    method: 'POST',
    path: '/alerts/v1/create',
    apiId: 'api.alert.create',
    summary: 'Write an alert rule as a draft (the condition in metadata.queryBuilderContext)',
    ...RULE_CODES,
    bodySchema: inputSchema(CREATE_RULE),
    operation: /* GraphQL */ `
      mutation RestCreateAlertRule($input: CreateAlertRuleInput!) {
        createAlertRule(input: $input) {
          alertRule {
            id: alertRuleId
          }
        }
      }
    `,
    variables: (input) => ({ input: ruleInput(CREATE_RULE, body<RuleBody>(input)) }),
    result: idResult('createAlertRule', 'alertRule'),
  }),

  defineEndpoint<RestSearchAlertRulesQuery, RestSearchAlertRulesQueryVariables>({
    method: 'POST',
    path: '/alerts/v1/search',
    apiId: 'api.alert.list',
    summary: "Search alert rules, each with the evaluator's state and its silence",
    ...RULE_CODES,
    bodySchema: { type: 'object', properties: { request: oneOrList(inputSchema(SEARCH), 'filters', 'status') }, additionalProperties: false },
    operation: SEARCH.type,
    variables: (input) => {
      const search = requestOf<{ offset?: number; options?: { order?: string[][] } }>(input);
      const given = toInput<RestSearchAlertRulesQueryVariables>(SEARCH, statusAsList(search));
      return { ...pageVariables(given, search.offset), orderBy: orderKeys('AlertRuleOrderField', search.options?.order) };
    },
    result: (data) => ({ alerts: data.alertRules.nodes.map((node) => project(RULE_RECORD, node)), count: data.alertRules.totalCount }),
  }),

  defineEndpoint<RestReadAlertRuleQuery, RestReadAlertRuleQueryVariables>({
    method: 'GET',
    path: '/alerts/v1/get/:id',
    apiId: 'api.alert.get',
    summary: "Read an alert rule with the evaluator's state and its silence",
    ...RULE_CODES,
    ...byId,
    operation: withFragment(
      /* GraphQL */ `
        query RestReadAlertRule($id: ID!) {
          alertRule(id: $id) {
            ...RestAlertRuleFields
          }
        }
      `,
      RULE_FIELDS,
    ),
    // `alerts` (a single rule under a plural name) is the original's.
    result: (data) => ({ alerts: project(RULE_RECORD, data.alertRule!) }),
  }),

  defineEndpoint<RestUpdateAlertRuleMutation, RestUpdateAlertRuleMutationVariables>({
    method: 'PATCH',
    path: '/alerts/v1/update/:id',
    apiId: 'api.alert.update',
    summary: 'Change an alert rule; a Live rule is unpublished and becomes a draft',
    ...RULE_CODES,
    pathSchema: idPath,
    bodySchema: inputSchema(UPDATE_RULE),
    // The service refuses an update that changes nothing ("nothing to update: ...").
    documentedServiceRules: { minProperties: 1 },
    operation: /* GraphQL */ `
      mutation RestUpdateAlertRule($id: ID!, $input: UpdateAlertRuleInput!) {
        updateAlertRule(id: $id, input: $input) {
          alertRule {
            id: alertRuleId
          }
        }
      }
    `,
    variables: (input) => ({ id: pathParam(input, 'id'), input: ruleInput(UPDATE_RULE, body<RuleBody>(input)) }),
    result: idResult('updateAlertRule', 'alertRule'),
  }),

  defineEndpoint<RestPublishAlertRuleMutation, RestPublishAlertRuleMutationVariables>({
    method: 'GET',
    path: '/alerts/v1/publish/:id',
    apiId: 'api.alert.publish',
    summary: 'Publish an alert rule: evaluated from now on (by the gateway, or by Grafana when it holds the rule)',
    ...RULE_CODES,
    ...byId,
    operation: /* GraphQL */ `
      mutation RestPublishAlertRule($id: ID!) {
        publishAlertRule(id: $id) {
          alertRule {
            id: alertRuleId
          }
        }
      }
    `,
    result: idResult('publishAlertRule', 'alertRule'),
  }),

  defineEndpoint<RestPrometheusRulesQuery, RestPrometheusRulesQueryVariables>({
    method: 'GET',
    path: '/alerts/v1/rules/prometheus',
    apiId: 'api.alert.rules.export',
    summary: 'The Live alert rules as a Prometheus rule file (YAML), for Prometheus with Alertmanager',
    invalidInputCode: 'ALERT_RULE_INVALID_INPUT',
    errorCodes: [],
    querySchema: PROMETHEUS_RULES.schema,
    operation: PROMETHEUS_RULES.shape.type,
    variables: (input) => ({ manager: null, ...PROMETHEUS_RULES.input(input.query) }),
    // The file itself, to save as a rule file (`rule_files` of prometheus.yml).
    contentType: 'application/yaml',
    result: (data) => data.prometheusRules,
  }),

  defineEndpoint<RestDeleteAlertRuleMutation, RestDeleteAlertRuleMutationVariables>({
    method: 'DELETE',
    path: '/alerts/v1/delete/:id',
    apiId: 'api.alert.delete',
    summary: 'Retire an alert rule, or delete it with hardDelete=true',
    ...RULE_CODES,
    pathSchema: idPath,
    querySchema: DELETE_RULE.schema,
    operation: DELETE_RULE.shape.type,
    variables: (input) => ({ hardDelete: false, ...DELETE_RULE.input(input.query), id: pathParam(input, 'id') }),
    result: (data) => ({ id: data.deleteAlertRule.id }),
  }),

  defineEndpoint<RestDeleteAlertRulesMutation, RestDeleteAlertRulesMutationVariables>({
    method: 'DELETE',
    path: '/alerts/v1/delete',
    // The original answers this route as api.alert.delete too; an id of its own keeps one id per route.
    apiId: 'api.alert.delete.bulk',
    summary: 'Delete every alert rule the filters select (an empty filter is refused)',
    ...RULE_CODES,
    bodySchema: oneOrList(inputSchema(DELETE_RULES), 'filters', 'status'),
    operation: DELETE_RULES.type,
    variables: (input) => toInput<RestDeleteAlertRulesMutationVariables>(DELETE_RULES, statusAsList(input.body)),
    result: (data) => ({ ids: data.deleteAlertRules.ids, count: data.deleteAlertRules.count }),
  }),
];
