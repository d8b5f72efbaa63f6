// The transports of the list-aggregate scenarios: the alert rule list's and the audit trail's
// figures over POST /graphql and, as live queries, over graphql-ws and graphql-sse (graph-query.ts).
import type { TestGateway } from '../../support/gateway.js';
import type { AggregatesDriver } from '../list-aggregates.js';
import { graphqlQueryCall, sseQueryCall, wsQueryCall, type GraphQueryCall } from './graph-query.js';

const RULE_FIGURES = {
  root: 'alertRules',
  variables: '$where: AlertRuleWhere, $fields: [AlertRuleGroupField!], $bucket: TimeBucket',
  field: `alertRules(where: $where, first: 0) {
    totalCount
    aggregate {
      count
      sum { evaluationIntervalMs pendingForMs }
      avg { evaluationIntervalMs pendingForMs }
      min { evaluationIntervalMs pendingForMs createdAt updatedAt }
      max { evaluationIntervalMs pendingForMs createdAt updatedAt }
    }
    groups: groupBy(fields: $fields, bucket: $bucket) { key keys count }
    older: groupBy(field: SEVERITY) { key count }
  }`,
};

const AUDIT_FIGURES = {
  root: 'auditRecords',
  variables: '$where: AuditRecordWhere',
  field: 'auditRecords(where: $where, first: 0) { totalCount aggregate { count min { at } max { at } } groupBy(fields: [AT, OUTCOME], bucket: HOUR) { keys count } }',
};

function driverOf(call: GraphQueryCall): AggregatesDriver {
  return {
    ruleFigures: (variables, bearer) => call(RULE_FIGURES.root, RULE_FIGURES.variables, RULE_FIGURES.field, variables, bearer),
    auditFigures: (variables, bearer) => call(AUDIT_FIGURES.root, AUDIT_FIGURES.variables, AUDIT_FIGURES.field, variables, bearer),
  };
}

export const graphqlAggregatesDriver = (gw: TestGateway): AggregatesDriver => driverOf(graphqlQueryCall(gw));
export const wsAggregatesDriver = (gw: TestGateway): AggregatesDriver => driverOf(wsQueryCall(gw));
export const sseAggregatesDriver = (gw: TestGateway): AggregatesDriver => driverOf(sseQueryCall(gw));
