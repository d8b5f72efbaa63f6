// The embedded rule evaluator: every Live rule whose manager does not evaluate rules itself is
// evaluated on its interval against the metrics the gateway serves (the embedded store, or
// Prometheus with PROMETHEUS_URL), walks inactive → pending (for its pending period) → firing →
// resolved, and notifies its channels on firing, every repeat interval while firing, and on resolve,
// unless a silence covers it then (the notification is recorded as silenced).
//
// Several gateways on one database share the work without doubling it: a gateway claims a due rule
// with FOR UPDATE SKIP LOCKED, so each rule is evaluated by one gateway per interval. The state
// change and the notifications it decides are written in one transaction (an outbox), and delivered
// afterwards by whichever gateway claims them: a gateway that dies mid-cycle rolls its claim back
// (the rule is evaluated again) or leaves its notifications pending (another gateway sends them).
import { randomUUID } from 'node:crypto';
import { announceLive } from '../live/index.js';
import type pg from 'pg';
import { GatewayError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { withTransaction } from '../../platform/database/transaction.js';
import { MetricsRequestError, type PrometheusApi } from '../../platform/metrics-store/prometheus-read-api.js';
import type { AlertService } from '../alerts/index.js';
import { formatDuration } from '../../platform/promql/parser.js';
import type { ActiveAlert, NotificationKind, RuleState, StringMap } from './types.js';

export interface AlertEvaluatorOptions {
  /** How often the evaluator looks for due rules and pending notifications (0: never on its own). */
  tickMs: number;
  /** How often a rule that keeps firing is notified again (Alertmanager's repeat_interval). */
  repeatIntervalMs: number;
  /** Delivery attempts of a notification before it is recorded as failed. */
  maxAttempts?: number;
  logger: Logger;
  now?: () => number;
  /** Told of each rule evaluation this gateway made (a per-copy counter: the copies' sum is the database's). */
  evaluated?: () => void;
}

/** Managers whose rules this evaluator runs (Grafana evaluates its own). */
export const EVALUATED_MANAGERS = ['embedded', 'alertmanager'] as const;

/** Most series one evaluation records as the rule's alerts. */
const ALERTS_KEPT = 100;
/** Rules and notifications one cycle handles at most, so a backlog never makes a cycle endless. */
const CYCLE_LIMIT = 500;
const DELIVERY_BATCH = 20;

interface ClaimedRule {
  rule_id: string;
  state: RuleState;
  active_since: Date | null;
  firing_since: Date | null;
  last_notified_at: Date | null;
  name: string;
  expression: string;
  description: string;
  severity: string;
  category: string;
  evaluation_interval_ms: number;
  pending_for_ms: number;
  channel_ids: string[];
}

interface Decision {
  state: RuleState;
  activeSince: Date | null;
  firingSince: Date | null;
  lastNotifiedAt: Date | null;
  notify?: NotificationKind;
}

/** Where a rule goes from `rule`'s state when its condition holds (`active`) or not at `at`. */
export function nextState(rule: Pick<ClaimedRule, 'state' | 'active_since' | 'firing_since' | 'last_notified_at' | 'pending_for_ms'>, active: boolean, at: Date, repeatIntervalMs: number): Decision {
  if (!active) {
    return { state: 'inactive', activeSince: null, firingSince: null, lastNotifiedAt: rule.last_notified_at, ...(rule.state === 'firing' ? { notify: 'resolved' as const } : {}) };
  }
  const activeSince = rule.state === 'inactive' || !rule.active_since ? at : rule.active_since;
  if (rule.state === 'firing') {
    const repeatDue = !rule.last_notified_at || at.getTime() - rule.last_notified_at.getTime() >= repeatIntervalMs;
    return { state: 'firing', activeSince, firingSince: rule.firing_since ?? at, lastNotifiedAt: repeatDue ? at : rule.last_notified_at, ...(repeatDue ? { notify: 'repeat' as const } : {}) };
  }
  if (at.getTime() - activeSince.getTime() >= rule.pending_for_ms) return { state: 'firing', activeSince, firingSince: at, lastNotifiedAt: at, notify: 'firing' };
  return { state: 'pending', activeSince, firingSince: null, lastNotifiedAt: rule.last_notified_at };
}

function describeLabels(labels: StringMap): string {
  const entries = Object.entries(labels);
  return entries.length === 0 ? '{}' : `{${entries.map(([name, value]) => `${name}="${value}"`).join(', ')}}`;
}

/** The subject and text of a notification. */
export function notificationMessage(rule: ClaimedRule, kind: NotificationKind, alerts: ActiveAlert[], at: Date): { subject: string; text: string } {
  const when = at.toISOString();
  if (kind === 'resolved') {
    return {
      subject: `[RESOLVED] ${rule.name}`,
      text: [`Alert rule "${rule.name}" is resolved: its condition no longer holds (evaluated at ${when}).`, `Condition: ${rule.expression}`, `Rule id: ${rule.rule_id}`].join('\n'),
    };
  }
  const series = alerts.slice(0, 20).map((alert) => `  ${describeLabels(alert.labels)} = ${alert.value}`);
  return {
    subject: `[FIRING] ${rule.name}${kind === 'repeat' ? ' (still firing)' : ''}`,
    text: [
      `Alert rule "${rule.name}" is firing (severity ${rule.severity}, category ${rule.category}).`,
      ...(rule.description ? [rule.description] : []),
      `Condition: ${rule.expression}, held for ${formatDuration(rule.pending_for_ms)} (evaluated at ${when}).`,
      `Series (${alerts.length}):`,
      ...series,
      ...(alerts.length > series.length ? [`  ... and ${alerts.length - series.length} more`] : []),
      `Rule id: ${rule.rule_id}`,
    ].join('\n'),
  };
}

interface QueryAnswer {
  data?: { resultType?: string; result?: unknown };
}

export class AlertEvaluator {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private readonly now: () => number;
  private readonly maxAttempts: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly prometheus: PrometheusApi,
    private readonly alerts: AlertService,
    private readonly options: AlertEvaluatorOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.maxAttempts = options.maxAttempts ?? 3;
  }

  start(): void {
    if (this.options.tickMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      // One cycle at a time: a slow cycle makes the next tick wait, never overlap.
      this.running ??= this.cycle()
        .catch((error: unknown) => this.options.logger.error({ err: error }, 'alert rule evaluation cycle failed'))
        .finally(() => (this.running = undefined));
    }, this.options.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Evaluates every rule due at `atMs`, then delivers the pending notifications. */
  async cycle(atMs = this.now()): Promise<{ evaluated: number; delivered: number }> {
    const at = new Date(atMs);
    let evaluated = 0;
    while (evaluated < CYCLE_LIMIT && (await this.evaluateOneDue(at))) evaluated += 1;
    // A notification that failed waits for the next cycle: each is tried at most once per cycle.
    const tried = new Set<string>();
    while (tried.size < CYCLE_LIMIT && (await this.deliverPending(at, tried)) > 0);
    return { evaluated, delivered: tried.size };
  }

  /** Claims, evaluates and advances one due rule; false when none is due (or all are claimed by others). */
  private evaluateOneDue(at: Date): Promise<boolean> {
    return withTransaction(this.pool, async (client) => {
      const claimed = await client.query<ClaimedRule>(
        `SELECT s.rule_id, s.state, s.active_since, s.firing_since, s.last_notified_at,
                r.name, r.expression, r.description, r.severity, r.category, r.evaluation_interval_ms, r.pending_for_ms, r.channel_ids
           FROM alert_rule_states s JOIN alert_rules r ON r.id = s.rule_id
          WHERE s.next_evaluation_at <= $1 AND r.status = 'live' AND r.manager = ANY($2)
          ORDER BY s.next_evaluation_at
          LIMIT 1
            FOR UPDATE OF s SKIP LOCKED`,
        [at, EVALUATED_MANAGERS],
      );
      const rule = claimed.rows[0];
      if (!rule) return false;
      this.options.evaluated?.();
      const next = new Date(at.getTime() + rule.evaluation_interval_ms);
      let alerts: ActiveAlert[];
      try {
        alerts = await this.query(rule.expression, at);
      } catch (error) {
        // The rule keeps its state (as Prometheus does); the error is shown with the rule.
        const message = error instanceof MetricsRequestError ? error.message : `the metrics store failed: ${(error as Error).message}`;
        await client.query('UPDATE alert_rule_states SET last_evaluated_at = $2, next_evaluation_at = $3, last_error = $4 WHERE rule_id = $1', [rule.rule_id, at, next, message.slice(0, 1000)]);
        this.options.logger.warn({ ruleId: rule.rule_id, err: error }, `alert rule "${rule.name}" could not be evaluated`);
        return true;
      }
      const decision = nextState(rule, alerts.length > 0, at, this.options.repeatIntervalMs);
      await client.query(
        `UPDATE alert_rule_states
            SET state = $2, active_since = $3, firing_since = $4, last_notified_at = $5, last_evaluated_at = $6, next_evaluation_at = $7,
                last_value = $8, last_error = NULL, alerts = $9
          WHERE rule_id = $1`,
        [rule.rule_id, decision.state, decision.activeSince, decision.firingSince, decision.lastNotifiedAt, at, next, alerts[0]?.value ?? null, JSON.stringify(alerts.slice(0, ALERTS_KEPT))],
      );
      if (decision.notify) await this.recordNotifications(client, rule, decision.notify, alerts, at);
      if (decision.state !== rule.state) {
        this.options.logger.info({ ruleId: rule.rule_id, from: rule.state, to: decision.state }, `alert rule "${rule.name}" is ${decision.state}`);
        const to = decision.notify === 'resolved' ? 'resolved' : decision.state;
        await announceLive(client, 'alert_rule_state', { ruleId: rule.rule_id, ruleName: rule.name, from: rule.state, to, value: alerts[0]?.value ?? null, at: at.toISOString() });
      }
      return true;
    });
  }

  /** The series for which the rule's condition holds at `at`. */
  private async query(expression: string, at: Date): Promise<ActiveAlert[]> {
    const answer = (await this.prometheus.get('/api/v1/query', { query: expression, time: String(at.getTime() / 1000) })) as QueryAnswer;
    const data = answer.data;
    if (data?.resultType === 'scalar') throw new MetricsRequestError('the condition evaluates to a scalar, not to series', 'bad_data');
    const result = (Array.isArray(data?.result) ? data.result : []) as { metric?: StringMap; value?: [number, string] }[];
    return result.map((sample) => ({ labels: sample.metric ?? {}, value: Number(sample.value?.[1]) }));
  }

  /** One notification per channel, pending, or silenced when a silence covers the rule at `at`. */
  private async recordNotifications(client: pg.PoolClient, rule: ClaimedRule, kind: NotificationKind, alerts: ActiveAlert[], at: Date): Promise<void> {
    if (rule.channel_ids.length === 0) return;
    const silence = (await this.alerts.silencesOf([rule.rule_id])).get(rule.rule_id);
    const silenced = this.alerts.mutes(silence, at.getTime());
    const message = notificationMessage(rule, kind, alerts, at);
    for (const channelId of rule.channel_ids) {
      // A channel retired (or deleted) since the rule was published gets nothing; the record says why.
      const channel = await this.alerts.getChannel(channelId).catch(() => undefined);
      const unusable = channel === undefined ? 'the notification channel no longer exists' : channel.status !== 'live' ? `the notification channel is ${channel.status}` : undefined;
      const outcome = unusable ? 'failed' : silenced ? 'silenced' : 'pending';
      const response = unusable ?? (silenced ? `silence ${silence.id} until ${silence.endTime.toISOString()}` : null);
      const id = randomUUID();
      const inserted = await client.query(
        `INSERT INTO alert_notifications (id, rule_id, channel_id, kind, evaluated_at, outcome, subject, text, response, delivered_date)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (rule_id, channel_id, kind, evaluated_at) DO NOTHING`,
        [id, rule.rule_id, channelId, kind, at, outcome, message.subject.slice(0, 500), message.text, response, null],
      );
      // Held back or undeliverable: decided now, so announced now (a pending one is announced once delivered).
      if (outcome !== 'pending' && inserted.rowCount === 1) {
        const decided = { id, ruleId: rule.rule_id, channelId, kind, evaluatedAt: at.toISOString(), outcome, subject: message.subject.slice(0, 500), text: message.text };
        await announceLive(client, 'notification', { ...decided, transport: null, response, attempts: 0, createdDate: at.toISOString(), deliveredDate: null });
      }
    }
  }

  /** Claims a batch of pending notifications and delivers them; answers how many were handled. */
  private deliverPending(at: Date, tried: Set<string>): Promise<number> {
    return withTransaction(this.pool, async (client) => {
      const pending = await client.query<{ id: string; rule_id: string; channel_id: string; kind: string; evaluated_at: Date; created_date: Date; subject: string; text: string; attempts: number }>(
        `SELECT id, rule_id, channel_id, kind, evaluated_at, created_date, subject, text, attempts FROM alert_notifications
          WHERE outcome = 'pending' AND NOT (id = ANY($1::uuid[])) ORDER BY created_date, id LIMIT ${DELIVERY_BATCH} FOR UPDATE SKIP LOCKED`,
        [[...tried]],
      );
      for (const row of pending.rows) {
        tried.add(row.id);
        const attempts = row.attempts + 1;
        try {
          const report = await this.alerts.deliver(row.channel_id, { subject: row.subject, text: row.text });
          await client.query(`UPDATE alert_notifications SET outcome = 'sent', transport = $2, response = $3, attempts = $4, delivered_date = $5 WHERE id = $1`, [
            row.id,
            report.transport,
            report.response.slice(0, 1000),
            attempts,
            at,
          ]);
          await announceLive(client, 'notification', {
            ...notificationEvent(row, attempts),
            outcome: 'sent',
            transport: report.transport,
            response: report.response.slice(0, 1000),
            deliveredDate: at.toISOString(),
          });
        } catch (error) {
          const gone = error instanceof GatewayError && error.code === 'NOTIFICATION_CHANNEL_NOT_FOUND';
          const outcome = gone || attempts >= this.maxAttempts ? 'failed' : 'pending';
          await client.query('UPDATE alert_notifications SET outcome = $2, response = $3, attempts = $4 WHERE id = $1', [row.id, outcome, (error as Error).message.slice(0, 1000), attempts]);
          if (outcome === 'failed')
            await announceLive(client, 'notification', { ...notificationEvent(row, attempts), outcome, transport: null, response: (error as Error).message.slice(0, 1000), deliveredDate: null });
          this.options.logger.warn({ ruleId: row.rule_id, channelId: row.channel_id, attempts, err: error }, `alert notification ${outcome === 'failed' ? 'failed' : 'will be retried'}`);
        }
      }
      return pending.rowCount ?? 0;
    });
  }
}

/** A notification row as its live announcement carries it (the outcome fields are the caller's). */
function notificationEvent(row: { id: string; rule_id: string; channel_id: string; kind: string; evaluated_at: Date; created_date: Date; subject: string; text: string }, attempts: number) {
  return {
    id: row.id,
    ruleId: row.rule_id,
    channelId: row.channel_id,
    kind: row.kind,
    evaluatedAt: row.evaluated_at.toISOString(),
    createdDate: row.created_date.toISOString(),
    subject: row.subject,
    text: row.text,
    attempts,
  };
}
