// The two transports of the alert-rule scenarios, in the original's spelling (what its console sends
// and reads). REST sends the console's body as it is to /alerts/v1 (no request envelope). GraphQL is
// sent what a GraphQL client of the same form would send: the condition taken out of
// `metadata.queryBuilderContext`, thresholds typed in as text parsed as numbers, enum values in
// capitals; a field the body holds that the input type lacks is sent as it is, for the type to
// refuse. Its answers are read back into the REST shape: `notification.channels`, `alertData` from
// the evaluation and its alerts' own state, `silenceState` from the rule's silence and `muted`.
import { cursorForOffset } from '../../../src/platform/lists/cursor.js';
import { graphql } from '../../support/api.js';
import type { TestGateway } from '../../support/gateway.js';
import type { AlertData, AlertRule, AlertRulesDriver, RuleBody, RuleSearch, SilenceState } from '../alert-rules.js';
import { graphqlTypedOutcome, mapOutcome, restOutcome } from '../harness.js';

export function restAlertRulesDriver(gw: TestGateway): AlertRulesDriver {
  const at = (action: string, id: string) => `/alerts/v1/${action}/${encodeURIComponent(id)}`;
  return {
    typeRefusal: 'ALERT_RULE_INVALID_INPUT',
    createRule: async (body) => restOutcome(await gw.http.post('/alerts/v1/create').send(body)),
    readRule: async (id) => mapOutcome(restOutcome<{ alerts: AlertRule }>(await gw.http.get(at('get', id))), ({ alerts }) => alerts),
    searchRules: async (search) => restOutcome(await gw.http.post('/alerts/v1/search').send({ request: search })),
    updateRule: async (id, changes) => restOutcome(await gw.http.patch(at('update', id)).send(changes)),
    publishRule: async (id) => restOutcome(await gw.http.get(at('publish', id))),
    deleteRule: async (id, hardDelete) => restOutcome(await gw.http.delete(at('delete', id)).query(hardDelete === undefined ? {} : { hardDelete: String(hardDelete) })),
    deleteRules: async (filters) => restOutcome(await gw.http.delete('/alerts/v1/delete').send({ filters })),
  };
}

// ---------------------------------------------------------------------------------------------
// GraphQL

const RULE = `id: alertRuleId name manager status description metric operator thresholds expression severity category evaluationInterval pendingPeriod
  labels { name value } annotations { name value } metadata channelIds context createdBy updatedBy createdAt updatedAt
  evaluation { state activeSince firingSince lastEvaluatedAt nextEvaluationAt lastError alerts { labels { name value } value state activeSince } }
  silence { id: silenceId endDate } muted`;

/** The fields GraphQL names as REST does (asRule passes them on; the enums' case aside), and its own. */
interface GraphQLRule extends Pick<
  AlertRule,
  'id' | 'name' | 'manager' | 'status' | 'description' | 'metric' | 'operator' | 'expression' | 'severity' | 'category' | 'metadata' | 'context' | 'createdAt' | 'updatedAt'
> {
  labels: NamedValue[];
  annotations: NamedValue[];
  thresholds: number[];
  evaluationInterval: string;
  pendingPeriod: string;
  channelIds: string[];
  createdBy: string;
  updatedBy: string;
  evaluation: {
    state: string;
    activeSince: string | null;
    firingSince: string | null;
    lastEvaluatedAt: string | null;
    nextEvaluationAt: string;
    lastError: string | null;
    alerts: { labels: NamedValue[]; value: number; state: string; activeSince: string | null }[];
  } | null;
  silence: { id: string; endDate: string } | null;
  muted: boolean;
}

interface NamedValue {
  name: string;
  value: string;
}

/** GraphQL lists labels and annotations as name/value pairs; the REST shape is one object. */
const asObject = (pairs: NamedValue[]) => Object.fromEntries(pairs.map(({ name, value }) => [name, value]));

const lower = (value: string) => value.toLowerCase();
const upper = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : value);
const ORDER_FIELDS = ['createdAt', 'updatedAt', 'name', 'status', 'severity', 'category'];
/** `updatedAt` → UPDATED_AT, as the order field enum spells it; a field the REST contract does not name is sent as it is. */
const enumOfField = (field: string) => (ORDER_FIELDS.includes(field) ? field.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase() : field);

/** The original's silenceState from the rule's silence and `muted` (the service's word on whether the silence holds now). */
function silenceState(silence: GraphQLRule['silence'], muted: boolean): SilenceState {
  if (!silence) return { state: 'unmuted', silenceId: '' };
  return { state: muted ? 'muted' : 'unmuted', silenceId: silence.id, ...(muted ? { endTime: Date.parse(silence.endDate) } : {}) };
}

/** PENDING → Pending: Grafana's words for an alert's state, which the REST rule answers. */
const capitalized = (value: string) => value.charAt(0) + value.slice(1).toLowerCase();

function alertData(evaluation: NonNullable<GraphQLRule['evaluation']>): AlertData {
  return {
    state: lower(evaluation.state),
    activeAt: evaluation.activeSince,
    firingSince: evaluation.firingSince,
    lastEvaluation: evaluation.lastEvaluatedAt,
    nextEvaluation: evaluation.nextEvaluationAt,
    ...(evaluation.lastError ? { lastError: evaluation.lastError } : {}),
    alerts: evaluation.alerts.map((alert) => ({ labels: asObject(alert.labels), value: alert.value, state: capitalized(alert.state), activeAt: alert.activeSince })),
  };
}

function asRule(rule: GraphQLRule): AlertRule {
  const { thresholds, evaluationInterval, pendingPeriod, channelIds, createdBy, updatedBy, evaluation, silence, muted, ...rest } = rule;
  return {
    ...rest,
    labels: asObject(rule.labels),
    annotations: asObject(rule.annotations),
    manager: lower(rule.manager),
    status: lower(rule.status),
    operator: lower(rule.operator),
    severity: lower(rule.severity),
    threshold: thresholds,
    frequency: evaluationInterval,
    interval: pendingPeriod,
    notification: { channels: channelIds },
    ...(evaluation ? { alertData: alertData(evaluation) } : {}),
    silenceState: silenceState(silence, muted),
    created_by: createdBy,
    updated_by: updatedBy,
  };
}

/** Text a form field held, parsed as a GraphQL client parses a number field; text that is no number is sent as it is. */
const asNumber = (value: unknown) => (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value);

/** The original's body as GraphQL's rule input: only what the body gives. */
function ruleInput(body: RuleBody): Record<string, unknown> {
  const { name, manager, description, category, severity, frequency, interval, labels, annotations, metadata, notification, context, ...unknown } = body;
  const condition = metadata?.queryBuilderContext;
  const threshold = condition?.threshold;
  const entries: Record<string, unknown> = {
    name,
    manager: upper(manager),
    description,
    category,
    severity: upper(severity),
    evaluationInterval: frequency,
    pendingPeriod: interval,
    metric: condition?.metric,
    metricAlias: condition?.metric === undefined ? condition?.metricAlias : undefined,
    operator: upper(condition?.operator),
    thresholds: threshold === undefined ? undefined : (Array.isArray(threshold) ? threshold : [threshold]).map(asNumber),
    labels,
    annotations,
    metadata,
    channelIds: notification?.channels?.filter((id) => typeof id === 'string' && id !== ''),
    context,
    ...unknown,
  };
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}

function ruleFilter(filters: Record<string, unknown>): Record<string, unknown> {
  const { status, severity, manager, 'context.alertType': alertType, ...rest } = filters;
  const entries: Record<string, unknown> = {
    ...rest,
    status: status === undefined ? undefined : (Array.isArray(status) ? status : [status]).map(upper),
    severity: upper(severity),
    manager: upper(manager),
    alertType,
  };
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}

export function graphqlAlertRulesDriver(gw: TestGateway): AlertRulesDriver {
  const call = async <T>(field: string, operation: string, variables: Record<string, unknown>) => graphqlTypedOutcome<T>(await graphql(gw, operation, variables), field);
  const idOf = async (field: string, operation: string, variables: Record<string, unknown>) =>
    mapOutcome(await call<{ alertRule: { id: string } }>(field, operation, variables), ({ alertRule }) => ({ id: alertRule.id }));

  return {
    typeRefusal: 'BAD_USER_INPUT',
    createRule: async (body) => idOf('createAlertRule', 'mutation($input: CreateAlertRuleInput!) { createAlertRule(input: $input) { alertRule { id: alertRuleId } } }', { input: ruleInput(body) }),
    readRule: async (id) => mapOutcome(await call<GraphQLRule>('alertRule', `query($id: ID!) { alertRule(id: $id) { ${RULE} } }`, { id }), asRule),
    searchRules: async ({ filters, options, limit, offset }: RuleSearch) =>
      mapOutcome(
        await call<{ totalCount: number; nodes: GraphQLRule[] }>(
          'alertRules',
          `query($filter: AlertRuleFilter, $orderBy: [AlertRuleOrder!], $first: Int, $after: String) {
            alertRules(filter: $filter, orderBy: $orderBy, first: $first, after: $after) { totalCount nodes { ${RULE} } }
          }`,
          {
            filter: filters && ruleFilter(filters),
            orderBy: options?.order?.map(([field = '', direction]) => ({ field: enumOfField(field), ...(direction === undefined ? {} : { order: upper(direction) }) })),
            first: limit,
            after: offset ? cursorForOffset(offset - 1) : undefined,
          },
        ),
        ({ totalCount, nodes }) => ({ alerts: nodes.map(asRule), count: totalCount }),
      ),
    updateRule: async (id, changes) =>
      idOf('updateAlertRule', 'mutation($id: ID!, $input: UpdateAlertRuleInput!) { updateAlertRule(id: $id, input: $input) { alertRule { id: alertRuleId } } }', { id, input: ruleInput(changes) }),
    publishRule: async (id) => idOf('publishAlertRule', 'mutation($id: ID!) { publishAlertRule(id: $id) { alertRule { id: alertRuleId } } }', { id }),
    deleteRule: async (id, hardDelete) =>
      mapOutcome(
        await call<{ id: string }>('deleteAlertRule', 'mutation($id: ID!, $hardDelete: Boolean) { deleteAlertRule(id: $id, hardDelete: $hardDelete) { id } }', { id, hardDelete }),
        ({ id: deleted }) => ({
          id: deleted,
        }),
      ),
    deleteRules: async (filters) =>
      call<{ ids: string[]; count: number }>('deleteAlertRules', 'mutation($filter: AlertRuleFilter!) { deleteAlertRules(filter: $filter) { ids count } }', { filter: ruleFilter(filters) }),
  };
}
