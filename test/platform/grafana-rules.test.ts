// Alert rules held by Grafana, through the gateway's REST routes, on what the gateway sends to
// Grafana's folder, data-source and ruler APIs (a local stand-in answers as Grafana does and keeps
// what it is given; Grafana itself is not packaged for these machines): publish creates the folder
// and the group, publishing again replaces the rule, update and delete take it out of its group
// (the group goes with its last rule), and Grafana's refusals leave the rule a draft.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type supertest from 'supertest';
import { calls, GRAFANA_TOKEN, slackChannel, startAlertingGateway, type AlertingGateway, type RecordedRequest } from '../support/alerting.js';

let gw: AlertingGateway;
let channelName: string;
let channelId: string;

beforeAll(async () => {
  gw = await startAlertingGateway();
  const channel = slackChannel(gw.fx.webhook, { manager: 'grafana' });
  channelName = channel.name;
  channelId = (await ok(await gw.http.post('/alerts/v1/notifications/create').send(channel))).id as string;
  // A rule may be published only with Live channels: publishing this one makes it a Grafana contact point.
  await ok(await gw.http.get(`/alerts/v1/notifications/publish/${channelId}`));
});

afterAll(async () => {
  await gw?.stop();
});

afterEach(() => gw.fx.reset());

async function ok(response: supertest.Response): Promise<Record<string, unknown>> {
  expect([response.status, response.body.error]).toEqual([200, undefined]);
  return response.body.result as Record<string, unknown>;
}

function grafanaRule(category: string, overrides: Record<string, unknown> = {}) {
  return {
    name: `rule ${randomUUID()}`,
    manager: 'grafana',
    description: 'Events fail validation',
    category,
    severity: 'critical',
    frequency: '30s',
    interval: '5m',
    labels: { team: 'data' },
    metadata: { queryBuilderContext: { metric: 'sum(rate(flink_failed_events_total[5m]))', operator: 'gt', threshold: [0] } },
    notification: { channels: [channelId] },
    ...overrides,
  };
}

async function createRule(body: Record<string, unknown>): Promise<string> {
  return (await ok(await gw.http.post('/alerts/v1/create').send(body))).id as string;
}

/** What Grafana was asked from the `from`-th request on, as `METHOD path`. */
function asked(from: number): string[] {
  return gw.fx.grafana.requests.slice(from).map((request) => `${request.method} ${request.path}`);
}

const folderNamed = (title: string) => gw.fx.grafanaState.folders.find((folder) => folder.title === title);
const groupOf = (category: string) => gw.fx.grafanaState.groups.get(`${folderNamed(category)?.uid}/${category}`);
const statusOf = async (id: string) => (await gw.sql('SELECT status FROM alert_rules WHERE id = $1', [id])).rows[0]?.status as string;
const rulerPosts = (from: number): RecordedRequest[] => calls({ requests: gw.fx.grafana.requests.slice(from) }, 'POST', '/api/ruler/grafana/api/v1/rules/');

describe('publishing a rule held by Grafana', () => {
  it('creates the folder of its category and a group of that name holding the rule under its id, with its timings, labels, condition and contact point', async () => {
    const category = `processing ${randomUUID().slice(0, 8)}`;
    const body = grafanaRule(category);
    const id = await createRule(body);
    const from = gw.fx.grafana.requests.length;
    await ok(await gw.http.get(`/alerts/v1/publish/${id}`));

    const folderUid = folderNamed(category)!.uid;
    const groupPath = `/api/ruler/grafana/api/v1/rules/${folderUid}/${encodeURIComponent(category)}`;
    expect(asked(from)).toEqual(['GET /api/datasources', 'GET /api/folders', 'POST /api/folders', `GET ${groupPath}`, `POST /api/ruler/grafana/api/v1/rules/${folderUid}`]);
    const [createFolder] = calls({ requests: gw.fx.grafana.requests.slice(from) }, 'POST', '/api/folders');
    expect(createFolder!.body).toEqual({ title: category });
    const [post] = rulerPosts(from);
    expect(post!.headers.authorization).toBe(`Bearer ${GRAFANA_TOKEN}`);
    expect(post!.body).toEqual({
      name: category,
      interval: '30s',
      rules: [
        {
          for: '5m',
          labels: { team: 'data', alertId: id, severity: 'critical' },
          annotations: { description: 'Events fail validation' },
          grafana_alert: {
            uid: id,
            title: body.name,
            condition: 'B',
            data: [
              {
                refId: 'A',
                datasourceUid: 'prometheus-uid',
                relativeTimeRange: { from: 600, to: 0 },
                model: {
                  refId: 'A',
                  datasource: { type: 'prometheus', uid: 'prometheus-uid' },
                  expr: 'count without () ((sum(rate(flink_failed_events_total[5m]))) > 0)',
                  instant: true,
                  range: false,
                },
              },
              {
                refId: 'B',
                datasourceUid: '__expr__',
                model: { refId: 'B', datasource: { type: '__expr__', uid: '__expr__' }, type: 'threshold', expression: 'A', conditions: [{ evaluator: { type: 'gt', params: [0] } }] },
              },
            ],
            no_data_state: 'OK',
            exec_err_state: 'Error',
            is_paused: false,
            notification_settings: { receiver: channelName },
          },
        },
      ],
    });
    expect(await statusOf(id)).toBe('live');
  });

  it('replaces the rule when published again (same uid, not a second rule), in the existing folder', async () => {
    const category = `replaced ${randomUUID().slice(0, 8)}`;
    const id = await createRule(grafanaRule(category));
    await ok(await gw.http.get(`/alerts/v1/publish/${id}`));
    const from = gw.fx.grafana.requests.length;
    await ok(await gw.http.get(`/alerts/v1/publish/${id}`));

    expect(asked(from)).not.toContain('POST /api/folders');
    expect(rulerPosts(from)).toHaveLength(1);
    expect(groupOf(category)!.rules.map((rule) => rule.grafana_alert.uid)).toEqual([id]);
    expect(gw.fx.grafanaState.folders.filter((folder) => folder.title === category)).toHaveLength(1);
  });

  it('refuses a channel Grafana does not hold (it notifies through its own contact points), naming it, and asks Grafana nothing', async () => {
    const embedded = await ok(await gw.http.post('/alerts/v1/notifications/create').send(slackChannel(gw.fx.webhook, { manager: 'embedded' })));
    await ok(await gw.http.get(`/alerts/v1/notifications/publish/${embedded.id as string}`));
    const id = await createRule(grafanaRule(`foreign channel ${randomUUID().slice(0, 8)}`, { notification: { channels: [embedded.id] } }));
    const from = gw.fx.grafana.requests.length;
    const response = await gw.http.get(`/alerts/v1/publish/${id}`);
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 400, code: 'ALERT_RULE_INVALID_INPUT' });
    expect(response.body.error.message).toMatch(/is held by the embedded manager; a rule held by grafana can notify only grafana's channels/);
    expect(asked(from)).toEqual([]);
    expect(await statusOf(id)).toBe('draft');
  });

  it('omits notification_settings when the rule notifies no channel', async () => {
    const category = `quiet ${randomUUID().slice(0, 8)}`;
    const id = await createRule(grafanaRule(category, { notification: { channels: [] } }));
    const from = gw.fx.grafana.requests.length;
    await ok(await gw.http.get(`/alerts/v1/publish/${id}`));
    const [post] = rulerPosts(from);
    expect(post!.body.rules[0].grafana_alert).not.toHaveProperty('notification_settings');
  });
});

describe('taking a rule out of Grafana', () => {
  it("keeps the group's other rules when one is published, updated (unpublished) and deleted; the group goes with its last rule, the folder stays", async () => {
    const category = `shared ${randomUUID().slice(0, 8)}`;
    const first = await createRule(grafanaRule(category));
    const second = await createRule(grafanaRule(category));
    await ok(await gw.http.get(`/alerts/v1/publish/${first}`));
    await ok(await gw.http.get(`/alerts/v1/publish/${second}`));
    expect(groupOf(category)!.rules.map((rule) => rule.grafana_alert.uid)).toEqual([first, second]);

    // Updating a Live rule unpublishes it: the group is posted back without it.
    let from = gw.fx.grafana.requests.length;
    await ok(await gw.http.patch(`/alerts/v1/update/${first}`).send({ description: 'changed' }));
    const [withoutFirst] = rulerPosts(from);
    expect(withoutFirst!.body.rules.map((rule: { grafana_alert: { uid: string } }) => rule.grafana_alert.uid)).toEqual([second]);
    expect(groupOf(category)!.rules.map((rule) => rule.grafana_alert.uid)).toEqual([second]);
    expect(await statusOf(first)).toBe('draft');

    // Deleting the last rule of the group deletes the group.
    from = gw.fx.grafana.requests.length;
    await ok(await gw.http.delete(`/alerts/v1/delete/${second}?hardDelete=true`));
    const folderUid = folderNamed(category)!.uid;
    expect(asked(from)).toEqual([
      'GET /api/folders',
      `GET /api/ruler/grafana/api/v1/rules/${folderUid}/${encodeURIComponent(category)}`,
      `DELETE /api/ruler/grafana/api/v1/rules/${folderUid}/${encodeURIComponent(category)}`,
    ]);
    expect(groupOf(category)).toBeUndefined();
    expect(folderNamed(category)).toBeDefined();
    expect(await statusOf(second)).toBeUndefined();
  });

  it('retires a draft without asking Grafana anything', async () => {
    const id = await createRule(grafanaRule(`draft ${randomUUID().slice(0, 8)}`));
    const from = gw.fx.grafana.requests.length;
    await ok(await gw.http.delete(`/alerts/v1/delete/${id}`));
    expect(asked(from)).toEqual([]);
    expect(await statusOf(id)).toBe('retired');
  });
});

describe("Grafana's refusals", () => {
  function expectManagerFailure(response: supertest.Response, message: RegExp): void {
    expect(response.status).toBe(502);
    expect(response.body.error.code).toBe('ALERT_MANAGER_FAILED');
    expect(response.body.error.message).toMatch(message);
  }

  it('answers ALERT_MANAGER_FAILED with what Grafana said when it answers 500, and the rule stays a draft', async () => {
    const category = `failing ${randomUUID().slice(0, 8)}`;
    const id = await createRule(grafanaRule(category));
    const fake = gw.fx.grafana.respond;
    gw.fx.grafana.respond = (request) => (request.method === 'POST' && request.path.startsWith('/api/ruler/') ? { status: 500, body: { message: 'failed to update rule group' } } : fake(request));
    expectManagerFailure(await gw.http.get(`/alerts/v1/publish/${id}`), /Grafana at .* answered HTTP 500: .*failed to update rule group/);
    expect(await statusOf(id)).toBe('draft');
    expect(groupOf(category)).toBeUndefined();
  });

  it('answers ALERT_MANAGER_FAILED naming the problem when Grafana has no Prometheus data source, and asks nothing more', async () => {
    const id = await createRule(grafanaRule(`no prometheus ${randomUUID().slice(0, 8)}`));
    const fake = gw.fx.grafana.respond;
    gw.fx.grafana.respond = (request) => (request.path === '/api/datasources' ? { status: 200, body: [{ uid: 'loki-uid', type: 'loki', name: 'Loki' }] } : fake(request));
    const from = gw.fx.grafana.requests.length;
    expectManagerFailure(await gw.http.get(`/alerts/v1/publish/${id}`), /has no Prometheus data source/);
    expect(asked(from)).toEqual(['GET /api/datasources']);
    expect(await statusOf(id)).toBe('draft');
  });

  it('answers ALERT_MANAGER_FAILED when Grafana cannot be reached', async () => {
    const id = await createRule(grafanaRule(`unreachable ${randomUUID().slice(0, 8)}`));
    gw.fx.grafana.respond = () => 'hang-up';
    expectManagerFailure(await gw.http.get(`/alerts/v1/publish/${id}`), /Grafana at .* could not be reached/);
    expect(await statusOf(id)).toBe('draft');
  });
});
