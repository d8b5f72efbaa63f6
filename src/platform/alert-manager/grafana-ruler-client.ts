// Alert rules in Grafana's ruler (/api/ruler/grafana/api/v1/rules): Grafana evaluates them and
// notifies its contact points. A rule lives in the folder titled like its category (found by title,
// created when missing, never deleted: other things may live there), in the rule group of the same
// name, under `grafana_alert.uid` = our rule id, so publishing again replaces it in place.
//
// The ruler has no per-rule write: a group is posted whole, so publishing and unpublishing read the
// group, change our rule and post the group back with its other rules as read (as Grafana's own UI
// does). Two writers of one group at once could lose each other's change; within this process the
// writes of one group are queued, across processes the window is one GET-to-POST round trip (the
// ruler offers no version check to close it). Creating a rule under a uid of ours needs Grafana
// 11.5.2 or newer (older ones answer 404 "could not find alert rule"), and `notification_settings`
// (simplified routing) needs 10.4 or newer.
import { formatDuration } from '../promql/parser.js';
import type { RulePort, RuleSpec } from './alert-manager.js';
import { managerFailure, ok, unexpectedAnswer, type ManagerRequest, type ManagerResponse } from './http.js';

const RULER = '/api/ruler/grafana/api/v1/rules';
/** Grafana's pseudo data source of server-side expressions (math, reduce, threshold). */
const EXPRESSIONS = { type: '__expr__', uid: '__expr__' };

type Call = (request: Omit<ManagerRequest, 'timeoutMs' | 'headers'>) => Promise<ManagerResponse>;

/** A rule as the ruler lists it; only the uid is read, the rest goes back as it came. */
interface GroupRule {
  grafana_alert?: { uid?: string };
  [field: string]: unknown;
}

interface RuleGroup {
  name: string;
  interval?: string;
  rules: GroupRule[];
}

/**
 * The rule as Grafana stores it. Its condition is our `expression`, whose every series is alerting
 * (as in a Prometheus rule file). Grafana instead fires a series when the condition's value is not
 * zero, and the values of our filter are the metric's own (`x < 5` keeps x = 0 or -3), so query A
 * turns each series into 1 with `count without ()`, which keeps every label but `__name__` (as
 * Prometheus does for alert labels), and B, a threshold `A > 0`, is the condition. No series means
 * nothing is alerting: `no_data_state` OK, not Grafana's default NoData alert.
 */
export function grafanaRule(rule: RuleSpec, datasourceUid: string) {
  const receiver = rule.contactPoints[0];
  return {
    for: formatDuration(rule.pendingForMs),
    labels: rule.labels,
    annotations: rule.annotations,
    grafana_alert: {
      uid: rule.id,
      title: rule.name,
      condition: 'B',
      data: [
        {
          refId: 'A',
          datasourceUid,
          // An instant query at the evaluation time; `from` only bounds what Grafana may look back on.
          relativeTimeRange: { from: 600, to: 0 },
          model: { refId: 'A', datasource: { type: 'prometheus', uid: datasourceUid }, expr: `count without () (${rule.expression})`, instant: true, range: false },
        },
        {
          refId: 'B',
          datasourceUid: EXPRESSIONS.uid,
          model: { refId: 'B', datasource: EXPRESSIONS, type: 'threshold', expression: 'A', conditions: [{ evaluator: { type: 'gt', params: [0] } }] },
        },
      ],
      no_data_state: 'OK',
      exec_err_state: 'Error',
      is_paused: false,
      // Simplified routing sends the rule's alerts to one contact point, without a policy tree.
      ...(receiver === undefined ? {} : { notification_settings: { receiver } }),
    },
  };
}

export class GrafanaRules implements RulePort {
  /** The last write queued per folder/group, so this process writes one group at a time. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly description: string,
    private readonly call: Call,
  ) {}

  async publish(rule: RuleSpec): Promise<void> {
    const datasourceUid = await this.prometheusDatasource();
    const folderUid = (await this.folderUid(rule.category)) ?? (await this.createFolder(rule.category));
    const ours = grafanaRule(rule, datasourceUid);
    await this.queued(folderUid, rule.category, async () => {
      const rules = (await this.readGroup(folderUid, rule.category))?.rules ?? [];
      const at = rules.findIndex((existing) => existing.grafana_alert?.uid === rule.id);
      const next = at === -1 ? [...rules, ours] : rules.map((existing, index) => (index === at ? ours : existing));
      // A group has one interval: the rule published last sets it.
      await this.writeGroup(folderUid, { name: rule.category, interval: formatDuration(rule.evaluationIntervalMs), rules: next });
    });
  }

  async unpublish(rule: Pick<RuleSpec, 'id' | 'name' | 'category'>): Promise<void> {
    const folderUid = await this.folderUid(rule.category);
    if (folderUid === undefined) return;
    await this.queued(folderUid, rule.category, async () => {
      const group = await this.readGroup(folderUid, rule.category);
      if (!group) return;
      const rest = group.rules.filter((existing) => existing.grafana_alert?.uid !== rule.id);
      if (rest.length === group.rules.length) return;
      if (rest.length > 0) return this.writeGroup(folderUid, { ...group, rules: rest });
      // The group's last rule: the group goes (the folder stays).
      const response = await this.call({ method: 'DELETE', url: this.groupPath(folderUid, rule.category) });
      if (!ok(response.status) && response.status !== 404) throw unexpectedAnswer(this.description, response);
    });
  }

  private async prometheusDatasource(): Promise<string> {
    const response = await this.call({ method: 'GET', url: '/api/datasources' });
    if (!ok(response.status)) throw unexpectedAnswer(this.description, response);
    const sources = Array.isArray(response.body) ? (response.body as { type?: unknown; uid?: unknown }[]) : [];
    const uid = sources.find((source) => source.type === 'prometheus')?.uid;
    if (typeof uid !== 'string' || uid === '') throw managerFailure(this.description, 'has no Prometheus data source to evaluate the rule with (add one in Grafana, then publish again)');
    return uid;
  }

  private async folderUid(title: string): Promise<string | undefined> {
    const response = await this.call({ method: 'GET', url: '/api/folders' });
    if (!ok(response.status)) throw unexpectedAnswer(this.description, response);
    const folders = Array.isArray(response.body) ? (response.body as { title?: unknown; uid?: unknown }[]) : [];
    const uid = folders.find((folder) => folder.title === title)?.uid;
    return typeof uid === 'string' ? uid : undefined;
  }

  private async createFolder(title: string): Promise<string> {
    const response = await this.call({ method: 'POST', url: '/api/folders', body: { title } });
    if (ok(response.status)) {
      const uid = (response.body as { uid?: unknown } | undefined)?.uid;
      if (typeof uid === 'string' && uid !== '') return uid;
      throw managerFailure(this.description, `created folder "${title}" but answered without its uid`);
    }
    // Someone else created it since we looked (Grafana refuses a second folder of one title).
    if (response.status === 409 || response.status === 412) {
      const uid = await this.folderUid(title);
      if (uid !== undefined) return uid;
    }
    throw unexpectedAnswer(this.description, response);
  }

  private async readGroup(folderUid: string, name: string): Promise<RuleGroup | undefined> {
    const response = await this.call({ method: 'GET', url: this.groupPath(folderUid, name) });
    if (response.status === 404) return undefined;
    if (!ok(response.status)) throw unexpectedAnswer(this.description, response);
    const group = response.body as Partial<RuleGroup> | undefined;
    if (!group || !Array.isArray(group.rules)) throw managerFailure(this.description, `answered rule group "${name}" without its rules: ${response.text.slice(0, 200)}`);
    return { name: group.name ?? name, ...(group.interval ? { interval: group.interval } : {}), rules: group.rules };
  }

  private async writeGroup(folderUid: string, group: RuleGroup): Promise<void> {
    const response = await this.call({ method: 'POST', url: `${RULER}/${encodeURIComponent(folderUid)}`, body: group });
    if (!ok(response.status)) throw unexpectedAnswer(this.description, response);
  }

  private groupPath(folderUid: string, name: string): string {
    return `${RULER}/${encodeURIComponent(folderUid)}/${encodeURIComponent(name)}`;
  }

  private async queued<T>(folderUid: string, group: string, work: () => Promise<T>): Promise<T> {
    const key = `${folderUid}/${group}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(work);
    this.queues.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.queues.get(key) === mine) this.queues.delete(key);
    }
  }
}
