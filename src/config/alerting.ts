// Alerting: the alert managers (Alertmanager, Grafana, or the embedded one), how notifications are sent, and the embedded rule evaluator.
import { z } from 'zod';
import type { ServerVariables } from './server.js';
import { list, SECRET } from './values.js';

export const alertingVariables = z.object({
  ALERTMANAGER_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Prometheus Alertmanager (API v2). When set, silences can be held there (manager "alertmanager").'),
  GRAFANA_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      'Grafana. When set, silences, channels (contact points) and alert rules can be held there (manager "grafana"). ' +
        "Rules go to its ruler (folder and group = the rule's category, evaluated with its first Prometheus data source, notifying the rule's first channel by simplified routing): " +
        'Grafana 11.5.2 or newer, with evaluation intervals that are multiples of 10s.',
    ),
  GRAFANA_TOKEN: z.string().min(1).optional().describe('Grafana service-account token, sent as `Authorization: Bearer <token>`.').meta(SECRET),
  ALERT_MANAGER_DEFAULT: z
    .enum(['embedded', 'alertmanager', 'grafana'])
    .optional()
    .describe(
      'Manager of a silence or channel whose request names none; it must be configured. Default: grafana when GRAFANA_URL is set, else alertmanager when ALERTMANAGER_URL is set, else embedded. Channels that would land on alertmanager (it holds no channels) are held by embedded.',
    ),
  ALERT_MANAGER_ALIASES: z
    .string()
    .default('')
    .refine(
      (value) => list(value).every((pair) => /^[a-z][a-z0-9_.-]{0,39}=(embedded|alertmanager|grafana)$/i.test(pair)),
      'must be name=manager pairs separated by commas, e.g. grafana=alertmanager,prometheus=embedded (a manager is embedded, alertmanager or grafana)',
    )
    .describe(
      "Other names requests may give as `manager`, each served by a configured manager (`name=manager`, comma-separated). Without GRAFANA_URL the name grafana (what legacy clients send) is served by alertmanager when ALERTMANAGER_URL is set, else by embedded, unless this says otherwise. A configured manager's own name cannot be an alias.",
    ),
  ALERT_MANAGER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000).describe('Longest one call to Alertmanager or Grafana may take.'),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/\s]+/, 'must be an smtp:// or smtps:// URL')
    .optional()
    .describe('SMTP server for e-mail channels (smtp://user:pass@host:587). When unset, e-mails are written to DATA_DIR/outbox.')
    .meta(SECRET),
  SMTP_FROM: z.string().min(3).default('Data Platform Gateway <alerts@localhost>').describe('Sender of notification e-mails.'),
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .regex(
      /^\s*((\*\.)?[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?\s*(,\s*((\*\.)?[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?\s*)*$/,
      'must be host names (optionally *.domain or host:port) separated by commas',
    )
    .default('hooks.slack.com,*.webhook.office.com,*.logic.azure.com')
    .describe('Hosts Slack/Teams webhook URLs may name (SSRF guard). Loopback and private addresses only when listed.'),
  NOTIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000).describe('Longest sending one notification may take.'),
  ALERTING_LIST_MAX: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Most silences, aliases or channels one list call returns.'),
  ALERT_EVALUATION_TICK_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(10)
    .describe('How often the embedded rule evaluator looks for due alert rules and pending notifications (each rule runs on its own interval); 0 turns it off.'),
  ALERT_REPEAT_INTERVAL_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_080)
    .default(240)
    .describe("How often a rule that keeps firing notifies its channels again (as Alertmanager's repeat_interval)."),
});

export type AlertingVariables = z.infer<typeof alertingVariables>;

export function alertingSettings(e: AlertingVariables & Pick<ServerVariables, 'DATA_DIR'>) {
  return {
    listMax: e.ALERTING_LIST_MAX,
    timeoutMs: e.ALERT_MANAGER_TIMEOUT_MS,
    ...(e.ALERTMANAGER_URL ? { alertmanager: { url: e.ALERTMANAGER_URL } } : {}),
    ...(e.GRAFANA_URL ? { grafana: { url: e.GRAFANA_URL, ...(e.GRAFANA_TOKEN ? { token: e.GRAFANA_TOKEN } : {}) } } : {}),
    /** How `manager` names in requests resolve (src/modules/alerts/manager-names.ts); checked against the configured managers. */
    managerNames: {
      ...(e.ALERT_MANAGER_DEFAULT ? { default: e.ALERT_MANAGER_DEFAULT } : {}),
      aliases: Object.fromEntries(managerAliases(e.ALERT_MANAGER_ALIASES)) as Readonly<Record<string, ManagerKindName>>,
    },
    ...(e.SMTP_URL ? { smtp: { url: e.SMTP_URL } } : {}),
    mailFrom: e.SMTP_FROM,
    outboxDir: `${e.DATA_DIR}/outbox`,
    webhookAllowedHosts: list(e.WEBHOOK_ALLOWED_HOSTS),
    notifyTimeoutMs: e.NOTIFY_TIMEOUT_MS,
    /** How often the embedded rule evaluator runs a cycle (0: never on its own). */
    evaluationTickMs: e.ALERT_EVALUATION_TICK_SECONDS * 1000,
    repeatIntervalMs: e.ALERT_REPEAT_INTERVAL_MINUTES * 60_000,
  };
}

/** The kinds of alert manager (src/modules/alerts/types.ts names them too). */
type ManagerKindName = NonNullable<AlertingVariables['ALERT_MANAGER_DEFAULT']>;

/** `grafana=alertmanager, Prometheus=embedded` -> [['grafana', 'alertmanager'], ['prometheus', 'embedded']] (names in lower case). */
function managerAliases(value: string): [string, ManagerKindName][] {
  return list(value).map((pair) => {
    const [name, target] = pair.split('=') as [string, string];
    return [name.trim().toLowerCase(), target.trim().toLowerCase() as ManagerKindName];
  });
}

/** ALERT_MANAGER_DEFAULT and ALERT_MANAGER_ALIASES must name managers this configuration enables; every problem is reported at once. */
export function alertingProblems(e: AlertingVariables): string[] {
  const setting: Record<ManagerKindName, string | undefined> = { embedded: 'always', alertmanager: e.ALERTMANAGER_URL, grafana: e.GRAFANA_URL };
  const variable: Record<ManagerKindName, string> = { embedded: '', alertmanager: 'ALERTMANAGER_URL', grafana: 'GRAFANA_URL' };
  const problems: string[] = [];
  if (e.ALERT_MANAGER_DEFAULT && !setting[e.ALERT_MANAGER_DEFAULT]) {
    problems.push(`ALERT_MANAGER_DEFAULT: ${e.ALERT_MANAGER_DEFAULT} is not configured (${variable[e.ALERT_MANAGER_DEFAULT]} is not set)`);
  }
  const seen = new Set<string>();
  for (const [name, target] of managerAliases(e.ALERT_MANAGER_ALIASES)) {
    if (seen.has(name)) problems.push(`ALERT_MANAGER_ALIASES: ${name} is given more than once`);
    seen.add(name);
    if ((name === 'embedded' || name === 'alertmanager' || name === 'grafana') && setting[name]) {
      problems.push(`ALERT_MANAGER_ALIASES: ${name} is a configured manager's own name and cannot be an alias`);
    }
    if (!setting[target]) problems.push(`ALERT_MANAGER_ALIASES: ${name}=${target} names a manager that is not configured (${variable[target]} is not set)`);
  }
  return problems;
}
