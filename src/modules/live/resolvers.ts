// GraphQL resolvers for subscriptions: each field's source comes from the gateway's live events
// (events.ts); the payload is the field's value as it is.
import { Kind, OperationTypeNode, type DocumentNode, type GraphQLResolveInfo, type OperationDefinitionNode } from 'graphql';
import { GatewayError } from '../../errors.js';
import type { Resolvers } from '../../generated/graphql.js';
import { stepGrid } from '../series/index.js';
import type { AlertRuleTransition, NotificationOutcomeEvent } from './announcements.js';
import { changeCursor, type ChangePage, type LoggedChange } from './change-log.js';
import { CHANGE_LOGS, type AlertStateChangeRecord, type AuditStreamRecord, type ChangeStreamField, type DatasetChangeRecord } from './change-logs.js';
import type { DatasetChange } from './events.js';

/** Longest ingestion interval a subscription may ask for (a day). */
const MAX_EVERY_SECONDS = 86_400;

const TRANSITION_STATE = { inactive: 'INACTIVE', pending: 'PENDING', firing: 'FIRING', resolved: 'RESOLVED' } as const;

/** The query a live query runs: the `live` field's selection as a query operation, with the document's fragments. */
function liveQueryOf(info: GraphQLResolveInfo): { document: DocumentNode; operation: OperationDefinitionNode } {
  const field = info.fieldNodes[0]!;
  const operation: OperationDefinitionNode = {
    kind: Kind.OPERATION_DEFINITION,
    operation: OperationTypeNode.QUERY,
    selectionSet: field.selectionSet!,
    variableDefinitions: info.operation.variableDefinitions ?? [],
  };
  return { operation, document: { kind: Kind.DOCUMENT, definitions: [operation, ...Object.values(info.fragments)] } };
}

function datasetChange(record: DatasetChangeRecord) {
  return {
    cursor: changeCursor(CHANGE_LOGS.datasetChanges, record.id),
    datasetId: record.datasetId,
    version: record.stage as 'live' | 'draft',
    kind: record.kind,
    statusBefore: record.statusBefore as never,
    statusAfter: record.statusAfter as never,
    versionNumber: record.version,
    actor: record.actor,
    at: record.at,
  };
}

function alertStateChange(record: AlertStateChangeRecord) {
  return {
    ...record,
    cursor: changeCursor(CHANGE_LOGS.alertStateChanges, record.id),
    statusBefore: record.statusBefore as never,
    statusAfter: record.statusAfter as never,
    stateBefore: record.stateBefore as never,
    stateAfter: record.stateAfter as never,
  };
}

function auditEntry(entry: AuditStreamRecord) {
  return { cursor: changeCursor(CHANGE_LOGS.auditStream, entry.id), record: entry.record };
}

/** A stream's page as its GraphQL type: each change mapped, and the cursor to resume from. */
function pageOf<R extends LoggedChange, T>(field: ChangeStreamField, map: (change: R) => T) {
  return (page: ChangePage<R>) => ({ changes: page.changes.map(map), endCursor: changeCursor(CHANGE_LOGS[field], page.position), caughtUp: page.caughtUp });
}

export const liveResolvers: Resolvers = {
  Subscription: {
    live: {
      subscribe: (_, __, { services, liveQueries }, info) => {
        // Only a shared evaluation of the live door has this (POST /graphql refuses subscriptions).
        if (!liveQueries) throw new Error('a live query runs only as a subscription over graphql-ws or SSE');
        const { document, operation } = liveQueryOf(info);
        const reads = liveQueries.readsOf(document, operation);
        return services.live.events.liveQueryReadings(reads.tables, {
          minIntervalMs: liveQueries.minIntervalMs,
          ...(reads.refreshMs !== undefined ? { refreshMs: reads.refreshMs } : {}),
          beforeEach: () => liveQueries.renewLoaders(),
        });
      },
      // The Query fields under `live` resolve from the root, as a query's do.
      resolve: () => ({}),
    },
    datasetChanged: {
      subscribe: (_, { datasetId }, { services }) => services.live.events.datasetChanges(datasetId ?? null),
      resolve: (change: DatasetChange) => change,
    },
    datasetChanges: {
      subscribe: (_, { after, first }, { services }) => services.live.events.changeLog('datasetChanges', after, first),
      resolve: pageOf('datasetChanges', datasetChange),
    },
    // api.alert.list, as its query twin alertRules (permissions.ts).
    alertStateChanges: {
      subscribe: (_, { after, first }, { services }) => services.live.events.changeLog('alertStateChanges', after, first),
      resolve: pageOf('alertStateChanges', alertStateChange),
    },
    // api.audit.read, as its query twin auditRecords (permissions.ts).
    auditStream: {
      subscribe: (_, { after, first }, { services }) => services.live.events.changeLog('auditStream', after, first),
      resolve: pageOf('auditStream', auditEntry),
    },
    alertRuleStateChanged: {
      subscribe: (_, { where }, { services }) =>
        services.live.events.alertTransitions((event) => (!where?.ruleId || event.ruleId === where.ruleId) && (!where?.states || where.states.includes(TRANSITION_STATE[event.to]))),
      resolve: (event: AlertRuleTransition) => ({ ...event, to: TRANSITION_STATE[event.to], at: new Date(event.at) }),
    },
    ingestionCounts: {
      subscribe: async (_, { datasetId, every }, { services }) => {
        const seconds = every ?? services.live.defaultEverySeconds;
        if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_EVERY_SECONDS) {
          throw new GatewayError('DATA_METRICS_INVALID_INPUT', `every: ${seconds} is not a whole number of seconds from 1 to ${MAX_EVERY_SECONDS}`);
        }
        // A dataset that does not exist would count zeros forever: refused as its query twin (dataset) is.
        await services.datasets.requireExisting(datasetId);
        return services.live.events.ingestionCounts(datasetId, seconds);
      },
      resolve: (point: import('../series/index.js').IngestionPoint) => point,
    },
    metricSeries: {
      subscribe: (_, { query, range, step }, { services }) => {
        const now = Date.now();
        // The window's range and step follow metricSeries's rules (a bad one fails here, before anything runs).
        stepGrid(new Date(now - Math.max(range, 0) * 1000), new Date(now), step);
        if (range < 0) throw new GatewayError('DATA_METRICS_INVALID_INPUT', `range: ${range} is not a number of seconds (0 or more)`);
        return services.live.events.metricSeries(query, range, step);
      },
      resolve: (series: import('../series/index.js').TimeSeries[]) => series,
    },
    notificationSent: {
      subscribe: (_, { where }, { services }) =>
        services.live.events.notifications(
          (event) =>
            (!where?.ruleId || event.ruleId === where.ruleId) &&
            (!where?.channelId || event.channelId === where.channelId) &&
            (!where?.outcomes || (where.outcomes as string[]).includes(event.outcome)),
        ),
      resolve: (event: NotificationOutcomeEvent) => ({
        ruleId: event.ruleId,
        notification: {
          ...event,
          kind: event.kind as never,
          outcome: event.outcome as never,
          evaluatedAt: new Date(event.evaluatedAt),
          createdDate: new Date(event.createdDate),
          deliveredDate: event.deliveredDate === null ? null : new Date(event.deliveredDate),
        },
      }),
    },
  },
};
