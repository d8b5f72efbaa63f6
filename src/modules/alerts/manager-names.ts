// What a `manager` name in a request means. The one place that turns a caller's name (or none) into
// the kind of manager that holds the record, so silences, channels and (later) alert rules agree.
//
// - A configured manager's own name (embedded, alertmanager with ALERTMANAGER_URL, grafana with
//   GRAFANA_URL) is that manager, in any letter case.
// - No name: ALERT_MANAGER_DEFAULT when set, else grafana when configured, else alertmanager when
//   configured, else embedded.
// - An alias (ALERT_MANAGER_ALIASES, e.g. `grafana=alertmanager,prometheus=embedded`) is its target.
//   Without GRAFANA_URL the name `grafana` is an alias of the platform's own manager (Alertmanager
//   when configured, else embedded) unless ALERT_MANAGER_ALIASES says otherwise: legacy clients (the
//   original's console) always send `manager: "grafana"`.
// - For channels, a default or an alias that lands on Alertmanager (which has no API for receivers)
//   lands on embedded instead. Naming `alertmanager` itself for a channel stays a refusal: that
//   caller asked for something Alertmanager cannot do.
// - Any other name is refused, naming the accepted ones.
import type { Config } from '../../config.js';
import { GatewayError, type ErrorCode } from '../../errors.js';
import type { AlertManagers } from '../../platform/alert-manager/alert-manager.js';
import { isManagerKind } from './rules.js';
import type { ManagerKind } from './types.js';

/** What the manager is asked to hold: any manager holds silences and alert rules; channels need one with a channel API. */
export type ManagerPurpose = 'silence' | 'channel' | 'rule';

/** The invalid-input code of each purpose's entries. */
const INVALID: Record<ManagerPurpose, ErrorCode> = { silence: 'SILENCE_INVALID_INPUT', channel: 'NOTIFICATION_CHANNEL_INVALID_INPUT', rule: 'ALERT_RULE_INVALID_INPUT' };

const SETTING: Record<ManagerKind, string> = { embedded: '(always available)', alertmanager: 'ALERTMANAGER_URL', grafana: 'GRAFANA_URL' };

export interface ManagerNames {
  /**
   * The kind of manager a request's `manager` names, for holding a silence or a channel.
   * `name` may be absent (null, undefined or blank: the default manager), a manager's name or an
   * alias, in any letter case. Throws the purpose's invalid-input GatewayError (SILENCE_INVALID_INPUT,
   * NOTIFICATION_CHANNEL_INVALID_INPUT) for a name that is unknown, not configured, or (for a
   * channel) Alertmanager. The kind returned is always configured; store it on the record.
   */
  readonly resolveManager: (name: string | null | undefined, purpose: ManagerPurpose) => ManagerKind;
  /** Every name a request may give: the configured managers, then the aliases. */
  readonly accepted: readonly string[];
  /** What the start-up log says about names that are not a configured manager's own (one line each). */
  readonly notes: readonly string[];
}

/**
 * The names of this configuration: `settings` is the parsed alerting configuration (its default
 * and aliases were checked against the configured managers at start-up), `managers` the managers
 * it enabled.
 */
export function createManagerNames(settings: Pick<Config['alerting'], 'managerNames'>, managers: AlertManagers): ManagerNames {
  const holdsChannels = (kind: ManagerKind) => managers.get(kind)?.channels !== undefined;
  const forPurpose = (kind: ManagerKind, purpose: ManagerPurpose): ManagerKind => (purpose === 'channel' && !holdsChannels(kind) ? 'embedded' : kind);
  const platformOwn: ManagerKind = managers.has('alertmanager') ? 'alertmanager' : 'embedded';

  const aliases = new Map<string, { target: ManagerKind; why: string }>();
  if (!managers.has('grafana') && settings.managerNames.aliases.grafana === undefined) aliases.set('grafana', { target: platformOwn, why: 'no GRAFANA_URL' });
  for (const [alias, target] of Object.entries(settings.managerNames.aliases)) aliases.set(alias, { target, why: 'ALERT_MANAGER_ALIASES' });

  const defaultKind: ManagerKind = settings.managerNames.default ?? (managers.has('grafana') ? 'grafana' : managers.has('alertmanager') ? 'alertmanager' : 'embedded');
  const accepted = [...managers.keys(), ...aliases.keys()];

  const notes = [...aliases].map(([alias, { target, why }]) => {
    const channels = holdsChannels(target) ? '' : `, and its channels by embedded (${target} holds no channels)`;
    const change = why === 'ALERT_MANAGER_ALIASES' ? '' : '; set ALERT_MANAGER_ALIASES to change';
    return `alert manager name "${alias}" is served by ${target} (${why})${channels}${change}`;
  });

  return {
    accepted,
    notes,
    resolveManager: (name, purpose) => {
      const code = INVALID[purpose];
      if (name === null || name === undefined || name.trim() === '') return forPurpose(defaultKind, purpose);
      const key = name.trim().toLowerCase();
      if (isManagerKind(key) && managers.has(key)) {
        if (purpose === 'channel' && !holdsChannels(key)) {
          throw new GatewayError(
            code,
            `manager "${key}" cannot hold notification channels: Alertmanager reads its receivers from its configuration file and has no API for them; use ${[...managers.keys()].filter(holdsChannels).join(' or ')}`,
          );
        }
        return key;
      }
      const alias = aliases.get(key);
      if (alias) return forPurpose(alias.target, purpose);
      if (isManagerKind(key)) throw new GatewayError(code, `manager "${key}" is not configured on this gateway (configured: ${[...managers.keys()].join(', ')}); set ${SETTING[key]} to use it`);
      throw new GatewayError(code, `manager must be one of ${accepted.join(', ')} (got ${JSON.stringify(name.slice(0, 40))})`);
    },
  };
}
