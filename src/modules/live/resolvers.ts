// GraphQL resolvers for subscriptions: each field's source comes from the gateway's live events
// (events.ts); the payload is the field's value as it is.
import { GatewayError } from '../../errors.js';
import type { Resolvers } from '../../generated/graphql.js';
import { stepGrid } from '../series/index.js';
import type { AlertRuleTransition, NotificationOutcomeEvent } from './announcements.js';
import type { DatasetChange } from './events.js';

/** Longest ingestion interval a subscription may ask for (a day). */
const MAX_EVERY_SECONDS = 86_400;

const TRANSITION_STATE = { inactive: 'INACTIVE', pending: 'PENDING', firing: 'FIRING', resolved: 'RESOLVED' } as const;

export const liveResolvers: Resolvers = {
  Subscription: {
    datasetChanged: {
      subscribe: (_, { datasetId }, { services }) => services.live.events.datasetChanges(datasetId ?? null),
      resolve: (change: DatasetChange) => change,
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
