// Alert managers: where silences and notification channels live. The embedded manager keeps them
// as records in our PostgreSQL; Prometheus Alertmanager and Grafana hold them over HTTP. The
// alerts service decides when to call which; implementations only speak their manager's API and
// raise ALERT_MANAGER_FAILED (with the manager's own answer) when it refuses or cannot be reached.
import type { Config } from '../../config.js';
import type { ChannelTarget, DeliveryReport } from '../notifier/channel.js';
import { PrometheusAlertmanager } from './alertmanager.js';
import { EmbeddedAlertManager } from './embedded.js';
import { GrafanaAlertManager } from './grafana.js';

/** Alert managers the gateway can act on; which of them are usable depends on the configuration. */
export const MANAGER_KINDS = ['embedded', 'alertmanager', 'grafana'] as const;
export type ManagerKind = (typeof MANAGER_KINDS)[number];

export interface SilenceSpec {
  /** The silenced alert: the silence matches the label `alertId` with this value. */
  alertId: string;
  startsAt: Date;
  endsAt: Date;
  comment: string;
  createdBy: string;
  /** The manager's id of a silence this one replaces (updated in place or expired by the manager). */
  replaces?: string | null;
}

/** Contact points, for managers that hold them. */
export interface ChannelPort {
  /** Creates the channel under the given id (our channel's id). */
  create(id: string, channel: ChannelTarget): Promise<void>;
  /** Replaces the channel under the given id. */
  update(id: string, channel: ChannelTarget): Promise<void>;
  /** Removes it; a channel the manager does not know counts as removed. */
  remove(id: string): Promise<void>;
  /** Sends a test message through the manager itself; absent when the gateway sends tests. */
  test?(channel: ChannelTarget, message: string): Promise<DeliveryReport>;
}

/** An alert rule as a manager that evaluates rules itself (Grafana) receives it. */
export interface RuleSpec {
  id: string;
  name: string;
  /** Grafana: the folder and the rule group. */
  category: string;
  description: string;
  /** The PromQL condition: the series it returns are alerting. */
  expression: string;
  evaluationIntervalMs: number;
  pendingForMs: number;
  /** The rule's labels, with `alertId` (what silences match) and `severity`. */
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Names of the contact points to notify (our Live channels). */
  contactPoints: string[];
}

/** Alert rules, for managers that evaluate them; without it the gateway's embedded evaluator runs the rules. */
export interface RulePort {
  /** Creates or replaces the rule (keyed by its id). */
  publish(rule: RuleSpec): Promise<void>;
  /** Removes it; a rule the manager does not hold counts as removed. */
  unpublish(rule: Pick<RuleSpec, 'id' | 'name' | 'category'>): Promise<void>;
}

export interface AlertManager {
  readonly kind: ManagerKind;
  /** A short description for logs, e.g. `Alertmanager at http://127.0.0.1:9093`. */
  readonly description: string;
  /** Creates (or replaces) a silence; returns the manager's id for it, null when the record is the silence. */
  upsertSilence(spec: SilenceSpec): Promise<string | null>;
  /** Ends a silence now; one the manager no longer knows, or that already ended, counts as expired. */
  expireSilence(managerSilenceId: string | null): Promise<void>;
  /** Absent when the manager has no API for channels (Alertmanager reads receivers from its file). */
  readonly channels?: ChannelPort;
  /** Absent when the manager does not evaluate rules (embedded, Alertmanager): the gateway evaluates them. */
  readonly rules?: RulePort;
}

/** The configured managers by kind; the embedded one is always there. */
export type AlertManagers = ReadonlyMap<ManagerKind, AlertManager>;

/** The managers this configuration enables: embedded always, the others when their URL is set. */
export function createAlertManagers(settings: Config['alerting']): AlertManagers {
  const managers = new Map<ManagerKind, AlertManager>([['embedded', new EmbeddedAlertManager()]]);
  if (settings.alertmanager) managers.set('alertmanager', new PrometheusAlertmanager({ url: settings.alertmanager.url, timeoutMs: settings.timeoutMs }));
  if (settings.grafana) managers.set('grafana', new GrafanaAlertManager({ ...settings.grafana, timeoutMs: settings.timeoutMs }));
  return managers;
}
