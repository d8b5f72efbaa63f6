// `manager` names (src/modules/alerts/manager-names.ts) and their settings: ALERT_MANAGER_DEFAULT and
// ALERT_MANAGER_ALIASES are checked at start-up against the managers the configuration enables, and
// resolveManager turns a request's name (or none) into the kind of manager that holds the record.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config.js';
import { GatewayError } from '../../src/errors.js';
import { createManagerNames } from '../../src/modules/alerts/manager-names.js';
import { createAlertManagers } from '../../src/platform/alert-manager/alert-manager.js';

const ALERTMANAGER = { ALERTMANAGER_URL: 'http://127.0.0.1:9093' };
const GRAFANA = { GRAFANA_URL: 'http://127.0.0.1:3001' };

function names(env: Record<string, string>) {
  const config = loadConfig(env);
  return createManagerNames(config.alerting, createAlertManagers(config.alerting));
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

function refusal(action: () => unknown): { code: string; message: string } | undefined {
  try {
    action();
  } catch (error) {
    if (error instanceof GatewayError) return { code: error.code, message: error.message };
    throw error;
  }
  return undefined;
}

describe('ALERT_MANAGER_DEFAULT and ALERT_MANAGER_ALIASES at start-up', () => {
  it('parses aliases into lower-case names', () => {
    expect(loadConfig({ ...ALERTMANAGER, ALERT_MANAGER_ALIASES: 'Grafana=alertmanager, prometheus=EMBEDDED' }).alerting.managerNames).toEqual({
      aliases: { grafana: 'alertmanager', prometheus: 'embedded' },
    });
    expect(loadConfig({ ...GRAFANA, ALERT_MANAGER_DEFAULT: 'embedded' }).alerting.managerNames).toEqual({ default: 'embedded', aliases: {} });
  });

  it.each<[string, Record<string, string>, RegExp]>([
    [
      'an alias whose target is not configured',
      { ALERT_MANAGER_ALIASES: 'grafana=alertmanager' },
      /^ALERT_MANAGER_ALIASES: grafana=alertmanager names a manager that is not configured \(ALERTMANAGER_URL is not set\)$/,
    ],
    ['an alias that is not name=manager', { ALERT_MANAGER_ALIASES: 'grafana' }, /^ALERT_MANAGER_ALIASES: must be name=manager pairs/],
    ['an alias naming a manager that does not exist', { ALERT_MANAGER_ALIASES: 'grafana=opsgenie' }, /^ALERT_MANAGER_ALIASES: must be name=manager pairs/],
    ['an alias hiding a configured manager', { ...GRAFANA, ALERT_MANAGER_ALIASES: 'grafana=embedded' }, /^ALERT_MANAGER_ALIASES: grafana is a configured manager's own name and cannot be an alias$/],
    ["an alias of the embedded manager's own name", { ALERT_MANAGER_ALIASES: 'embedded=embedded' }, /^ALERT_MANAGER_ALIASES: embedded is a configured manager's own name/],
    ['a name given twice', { ALERT_MANAGER_ALIASES: 'prometheus=embedded,Prometheus=embedded' }, /^ALERT_MANAGER_ALIASES: prometheus is given more than once$/],
    ['a default that is not configured', { ALERT_MANAGER_DEFAULT: 'grafana' }, /^ALERT_MANAGER_DEFAULT: grafana is not configured \(GRAFANA_URL is not set\)$/],
    ['a default that is not a manager', { ALERT_MANAGER_DEFAULT: 'prometheus' }, /^ALERT_MANAGER_DEFAULT: /],
  ])('refuses %s, naming the variable', (_, env, problem) => {
    const problems = problemsOf(env);
    expect(problems.some((text) => problem.test(text))).toBe(true);
  });

  it('reports a bad default and a bad alias at once', () => {
    const problems = problemsOf({ ALERT_MANAGER_DEFAULT: 'alertmanager', ALERT_MANAGER_ALIASES: 'x=grafana' });
    expect(problems.map((problem) => problem.split(':')[0])).toEqual(['ALERT_MANAGER_DEFAULT', 'ALERT_MANAGER_ALIASES']);
  });
});

describe('resolveManager', () => {
  it('takes a configured manager by its name, in any letter case', () => {
    const resolve = names({ ...ALERTMANAGER, ...GRAFANA }).resolveManager;
    expect([resolve('grafana', 'silence'), resolve('ALERTMANAGER', 'silence'), resolve(' Embedded ', 'channel'), resolve('GRAFANA', 'channel')]).toEqual([
      'grafana',
      'alertmanager',
      'embedded',
      'grafana',
    ]);
  });

  it.each<[string, Record<string, string>, string, string]>([
    ['Grafana when configured', { ...ALERTMANAGER, ...GRAFANA }, 'grafana', 'grafana'],
    ['Alertmanager for silences and embedded for channels without Grafana', ALERTMANAGER, 'alertmanager', 'embedded'],
    ['embedded with neither', {}, 'embedded', 'embedded'],
    ['ALERT_MANAGER_DEFAULT when set', { ...GRAFANA, ALERT_MANAGER_DEFAULT: 'embedded' }, 'embedded', 'embedded'],
    ['embedded for channels when ALERT_MANAGER_DEFAULT is alertmanager', { ...ALERTMANAGER, ...GRAFANA, ALERT_MANAGER_DEFAULT: 'alertmanager' }, 'alertmanager', 'embedded'],
  ])('gives no name the default manager: %s', (_, env, silence, channel) => {
    const { resolveManager } = names(env);
    expect([resolveManager(undefined, 'silence'), resolveManager(null, 'channel'), resolveManager('  ', 'silence')]).toEqual([silence, channel, silence]);
  });

  it.each<[string, Record<string, string>, string, string, string]>([
    [
      'the embedded manager with neither Grafana nor Alertmanager',
      {},
      'embedded',
      'embedded',
      'alert manager name "grafana" is served by embedded (no GRAFANA_URL); set ALERT_MANAGER_ALIASES to change',
    ],
    [
      'Alertmanager (embedded for channels) when Alertmanager is configured',
      ALERTMANAGER,
      'alertmanager',
      'embedded',
      'alert manager name "grafana" is served by alertmanager (no GRAFANA_URL), and its channels by embedded (alertmanager holds no channels); set ALERT_MANAGER_ALIASES to change',
    ],
    [
      'what ALERT_MANAGER_ALIASES says',
      { ...ALERTMANAGER, ALERT_MANAGER_ALIASES: 'grafana=embedded' },
      'embedded',
      'embedded',
      'alert manager name "grafana" is served by embedded (ALERT_MANAGER_ALIASES)',
    ],
  ])('serves the name "grafana" without Grafana with %s, and says so once', (_, env, silence, channel, note) => {
    const { resolveManager, notes } = names(env);
    expect([resolveManager('grafana', 'silence'), resolveManager('Grafana', 'channel')]).toEqual([silence, channel]);
    expect(notes).toEqual([note]);
  });

  it('has no notes when Grafana is configured and no alias is set', () => {
    expect(names({ ...GRAFANA }).notes).toEqual([]);
  });

  it('serves an alias by its target', () => {
    const { resolveManager, accepted } = names({ ...ALERTMANAGER, ALERT_MANAGER_ALIASES: 'prometheus=alertmanager,local=embedded' });
    expect([resolveManager('prometheus', 'silence'), resolveManager('prometheus', 'channel'), resolveManager('LOCAL', 'silence')]).toEqual(['alertmanager', 'embedded', 'embedded']);
    expect(accepted).toEqual(['embedded', 'alertmanager', 'grafana', 'prometheus', 'local']);
  });

  it.each<[string, Record<string, string>, string, 'silence' | 'channel', string, RegExp]>([
    ['a name it does not know', {}, 'opsgenie', 'silence', 'SILENCE_INVALID_INPUT', /^manager must be one of embedded, grafana \(got "opsgenie"\)$/],
    [
      'a manager that is not configured',
      {},
      'alertmanager',
      'channel',
      'NOTIFICATION_CHANNEL_INVALID_INPUT',
      /^manager "alertmanager" is not configured on this gateway \(configured: embedded\); set ALERTMANAGER_URL to use it$/,
    ],
    ['Alertmanager named for a channel', ALERTMANAGER, 'alertmanager', 'channel', 'NOTIFICATION_CHANNEL_INVALID_INPUT', /^manager "alertmanager" cannot hold notification channels/],
  ])("refuses %s with the purpose's invalid-input code", (_, env, name, purpose, code, message) => {
    const refused = refusal(() => names(env).resolveManager(name, purpose));
    expect(refused?.code).toBe(code);
    expect(refused?.message).toMatch(message);
  });
});
