// Subscriptions (src/modules/live, src/http/use-subscriptions.ts): queues, limits and keep-alive; how
// long changes are kept (the change logs) and how many versions of each record (history).
import { z } from 'zod';

export const liveVariables = z.object({
  LIVE_QUEUE_CAPACITY: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(256)
    .describe('Events a subscriber (WebSocket or SSE) may fall behind by; one more and it is dropped (WebSocket close 4429), never buffered without bound.'),
  LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().min(1).max(10_000).default(100).describe('Subscriptions one WebSocket connection may hold at once.'),
  LIVE_MAX_SUBSCRIPTIONS_PER_CALLER: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(1_000)
    .describe('Subscriptions one caller (user, API key) may hold at once on one gateway, over all its connections.'),
  LIVE_KEEPALIVE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(12)
    .describe('How often an idle WebSocket is pinged (a client that does not answer within as long is dropped); 0 turns pings off.'),
  LIVE_QUERY_MIN_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(1000)
    .describe('Shortest time between two readings of one live query (subscription { live { ... } }): changes coming faster are read together.'),
  CHANGE_LOG_RETENTION_HOURS: z.coerce
    .number()
    .positive()
    .max(8_760)
    .default(72)
    .describe(
      'Hours the change logs are kept (Subscription.datasetChanges, alertStateChanges, auditStream): a client may resume from a cursor this recent; an older one is refused with CHANGE_CURSOR_EXPIRED.',
    ),
  VERSION_RETENTION: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(50)
    .describe('Versions kept of each dataset, query template, alert rule and notification channel (their `history`): the newest ones; an older one is deleted as a new one is written.'),
});

type LiveVariables = z.infer<typeof liveVariables>;

export function liveSettings(e: LiveVariables) {
  return {
    queueCapacity: e.LIVE_QUEUE_CAPACITY,
    maxPerConnection: e.LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION,
    maxPerCaller: e.LIVE_MAX_SUBSCRIPTIONS_PER_CALLER,
    keepAliveMs: e.LIVE_KEEPALIVE_SECONDS * 1000,
    liveQueryMinIntervalMs: e.LIVE_QUERY_MIN_INTERVAL_MS,
    changeLogRetentionMs: Math.round(e.CHANGE_LOG_RETENTION_HOURS * 3_600_000),
    versionRetention: e.VERSION_RETENTION,
  };
}
