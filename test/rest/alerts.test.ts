// Alerting over the REST compatibility layer (contract 4.6, reference §6-§7): what only REST has.
// The behaviour both transports share is in test/contract/alert-silences.ts, alert-metric-aliases.ts
// and alert-channels.ts; here are the envelope (each entry's api id, the failure envelope of a code
// that is not a refused input), the request schema's refusals (/alerts/v1 takes no request envelope:
// the body is the object itself), a body that is not JSON, the original's startTime/endTime names,
// limit/offset pages, the bare search body beside the original's `request` wrapper and the console's
// UI flags in a test message. The rules about values (UUIDs, emptiness, lengths, nothing to update)
// answer one message on both transports and are in those contract files. Tests share one database:
// every test uses ids and names of its own.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { expectFailure as expectRefusal, restOutcome } from '../contract/harness.js';
import { aliasBody, aliasesNamed, channelsNamed, emailChannel, hoursFromNow, silenceBody, silencesOf, slackChannel, useAlertingGateway } from '../support/alerting.js';

const gw = useAlertingGateway();

function post(path: string, body: unknown): Promise<Response> {
  return gw()
    .http.post(path)
    .send(body as object);
}

/** A success envelope with this api id; returns its result. */
function expectOk(response: Response, apiId: string): any {
  expect({ status: response.status, id: response.body.id, responseCode: response.body.responseCode, params: response.body.params?.status }).toEqual({
    status: 200,
    id: apiId,
    responseCode: 'OK',
    params: 'SUCCESS',
  });
  return response.body.result;
}

/** A failure envelope with this status and code, a message matching `message`, an empty trace and result (restOutcome checks the kind). */
function expectFailure(response: Response, status: number, code: string, message: RegExp): void {
  expect(response.status).toBe(status);
  expectRefusal(restOutcome(response), code, message);
  expect(response.body.error.trace).toBe('');
  expect(response.body.result).toEqual({});
}

async function createOk(path: string, apiId: string, body: unknown): Promise<string> {
  return expectOk(await post(`/alerts/v1/${path}`, body), apiId).id;
}

/** Creates the record, then asks for it once more. */
async function createTwice(path: string, apiId: string, body: unknown): Promise<Response> {
  await createOk(path, apiId, body);
  return post(`/alerts/v1/${path}`, body);
}

describe('the envelope', () => {
  it('answers each silence entry with its api id', async () => {
    const id = await createOk('silence/create', 'api.alert.silence.create', silenceBody());
    expect(expectOk(await gw().http.get(`/alerts/v1/silence/get/${id}`), 'api.alert.silence.get').id).toBe(id);
    expect(expectOk(await gw().http.get('/alerts/v1/silence/search'), 'api.alert.silence.list').count).toBeGreaterThan(0);
    expect(
      expectOk(
        await gw()
          .http.patch(`/alerts/v1/silence/update/${id}`)
          .send({ endDate: hoursFromNow(3) }),
        'api.alert.silence.update',
      ),
    ).toEqual({ id });
    expect(expectOk(await gw().http.delete(`/alerts/v1/silence/delete/${id}`), 'api.alert.silence.delete')).toEqual({ id });
  });

  it('answers each metric alias entry with its api id', async () => {
    const id = await createOk('metric/alias/create', 'api.metric.add', aliasBody());
    expect(expectOk(await gw().http.get(`/alerts/v1/metric/alias/get/${id}`), 'api.metric.get').id).toBe(id);
    expect(expectOk(await post('/alerts/v1/metric/alias/search', {}), 'api.metric.list').count).toBeGreaterThan(0);
    expect(expectOk(await gw().http.patch(`/alerts/v1/metric/alias/update/${id}`).send({ metric: 'up' }), 'api.metric.update')).toEqual({ id });
    expect(expectOk(await gw().http.delete(`/alerts/v1/metric/alias/delete/${id}`), 'api.metric.remove')).toEqual({ id });
  });

  it('answers each notification channel entry with its api id', async () => {
    const id = await createOk('notifications/create', 'api.alert.notification.create', emailChannel());
    expect(expectOk(await gw().http.get(`/alerts/v1/notifications/get/${id}`), 'api.alert.notification.get').id).toBe(id);
    expect(expectOk(await gw().http.get(`/alerts/v1/notifications/publish/${id}`), 'api.alert.notification.publish')).toEqual({ id, status: 'published' });
    expect(expectOk(await post('/alerts/v1/notifications/search', {}), 'api.alert.notification.list').count).toBeGreaterThan(0);
    expect(
      expectOk(
        await gw()
          .http.patch(`/alerts/v1/notifications/update/${id}`)
          .send({ config: { recipientAddresses: 'new@example.com' } }),
        'api.alert.notification.update',
      ),
    ).toEqual({ id });
    expect(expectOk(await post('/alerts/v1/notifications/test', { payload: { id } }), 'api.alert.notification.test')).toMatchObject({ status: 'Notification Sent', id });
    expect(expectOk(await gw().http.delete(`/alerts/v1/notifications/delete/${id}`), 'api.alert.notification.delete')).toEqual({ id });
  });

  it.each<[string, number, RegExp, () => Promise<Response>]>([
    ['SILENCE_NOT_FOUND', 404, /does not exist/, () => gw().http.delete(`/alerts/v1/silence/delete/${randomUUID()}`)],
    ['METRIC_ALIAS_NOT_FOUND', 404, /does not exist/, () => gw().http.get(`/alerts/v1/metric/alias/get/${randomUUID()}`)],
    ['NOTIFICATION_CHANNEL_NOT_FOUND', 404, /does not exist/, () => post('/alerts/v1/notifications/test', { payload: { id: randomUUID() } })],
    ['METRIC_ALIAS_ALREADY_EXISTS', 409, /already exists/, () => createTwice('metric/alias/create', 'api.metric.add', aliasBody())],
    ['NOTIFICATION_CHANNEL_ALREADY_EXISTS', 409, /already exists/, () => createTwice('notifications/create', 'api.alert.notification.create', emailChannel())],
    [
      'NOTIFICATION_CHANNEL_CONFLICT',
      409,
      /is already live/,
      async () => {
        const id = await createOk('notifications/create', 'api.alert.notification.create', emailChannel());
        await gw().http.get(`/alerts/v1/notifications/publish/${id}`);
        return gw().http.get(`/alerts/v1/notifications/publish/${id}`);
      },
    ],
    [
      'NOTIFICATION_CHANNEL_RETIRED',
      400,
      /is retired and cannot be published/,
      async () => {
        const id = await createOk('notifications/create', 'api.alert.notification.create', emailChannel());
        await gw().http.delete(`/alerts/v1/notifications/delete/${id}`);
        return gw().http.get(`/alerts/v1/notifications/publish/${id}`);
      },
    ],
    [
      'ALERT_MANAGER_FAILED',
      502,
      /answered HTTP 500: storage failure/,
      () => {
        gw().fx.alertmanager.respond = () => ({ status: 500, body: 'storage failure' });
        return post('/alerts/v1/silence/create', silenceBody({ manager: 'alertmanager' }));
      },
    ],
    [
      'NOTIFICATION_FAILED',
      502,
      /answered HTTP 404: no_service/,
      () => {
        gw().fx.webhook.respond = () => ({ status: 404, body: 'no_service' });
        return post('/alerts/v1/notifications/test', { message: 'x', payload: slackChannel(gw().fx.webhook) });
      },
    ],
  ])('answers %s with HTTP %d and the failure envelope', async (code, status, message, request) => {
    expectFailure(await request(), status, code, message);
  });
});

describe('POST /alerts/v1/silence/create: the request', () => {
  it.each([
    ['alertId is missing', { alertId: undefined }, /#required must have required property 'alertId'/],
    ['startDate is not an ISO 8601 date-time', { startDate: '22/11/2026' }, /#properties\/startDate\/format must match format "date-time"/],
    ['endDate is missing', { endDate: undefined }, /#required must have required property 'endDate'/],
    ['the body has a field the contract does not', { severity: 'high' }, /#additionalProperties must NOT have additional properties: 'severity'/],
  ])('refuses a body where %s with 400 SILENCE_INVALID_INPUT naming the problem, and stores nothing', async (_, overrides, message) => {
    const body = { ...silenceBody(), ...overrides };
    const requestsBefore = gw().fx.alertmanager.requests.length;
    expectFailure(await post('/alerts/v1/silence/create', body), 400, 'SILENCE_INVALID_INPUT', message);
    if (typeof body.alertId === 'string') expect(await silencesOf(gw(), body.alertId)).toEqual([]);
    expect(gw().fx.alertmanager.requests.length).toBe(requestsBefore);
  });

  it('refuses a body that is not JSON with 400 SILENCE_INVALID_INPUT', async () => {
    const response = await gw().http.post('/alerts/v1/silence/create').set('content-type', 'application/json').send('{"alertId": ');
    expectFailure(response, 400, 'SILENCE_INVALID_INPUT', /not valid JSON/);
  });
});

describe('GET /alerts/v1/silence/search: the query', () => {
  it('pages with limit and offset', async () => {
    await createOk('silence/create', 'api.alert.silence.create', silenceBody());
    await createOk('silence/create', 'api.alert.silence.create', silenceBody());
    const all = expectOk(await gw().http.get('/alerts/v1/silence/search'), 'api.alert.silence.list');
    const page = expectOk(await gw().http.get('/alerts/v1/silence/search?limit=1&offset=1'), 'api.alert.silence.list');
    expect(page.transformedSilences).toHaveLength(1);
    expect(page.transformedSilences[0].id).toBe(all.transformedSilences[1].id);
  });

  it('refuses a bad search filter with 400 SILENCE_INVALID_INPUT', async () => {
    expectFailure(await gw().http.get('/alerts/v1/silence/search?manager=prometheus'), 400, 'SILENCE_INVALID_INPUT', /manager\/enum/);
  });
});

describe('PATCH /alerts/v1/silence/update/:id: the body', () => {
  it("accepts the original's startTime/endTime names", async () => {
    const body = silenceBody();
    const id = await createOk('silence/create', 'api.alert.silence.create', body);
    const endTime = hoursFromNow(7);
    expectOk(await gw().http.patch(`/alerts/v1/silence/update/${id}`).send({ endTime }), 'api.alert.silence.update');
    expect((await silencesOf(gw(), body.alertId))[0].end_time.toISOString()).toBe(endTime);
  });
});

describe('metric aliases: the request', () => {
  it.each([['no metric', { metric: undefined }, /#required must have required property 'metric'/]])(
    'refuses %s with 400 METRIC_ALIAS_INVALID_INPUT, and stores nothing',
    async (_, overrides, message) => {
      const body = { ...aliasBody(), ...overrides };
      expectFailure(await post('/alerts/v1/metric/alias/create', body), 400, 'METRIC_ALIAS_INVALID_INPUT', message);
      expect(await aliasesNamed(gw(), body.alias)).toEqual([]);
    },
  );

  it("searches with the original's request wrapper or a bare body", async () => {
    const subComponent = `ds-${randomUUID()}`;
    await createOk('metric/alias/create', 'api.metric.add', aliasBody({ subComponent }));
    await createOk('metric/alias/create', 'api.metric.add', aliasBody({ subComponent }));
    const wrapped = expectOk(await post('/alerts/v1/metric/alias/search', { request: { filters: { subComponent }, limit: 1 } }), 'api.metric.list');
    const bare = expectOk(await post('/alerts/v1/metric/alias/search', { filters: { subComponent }, limit: 1 }), 'api.metric.list');
    expect(bare.metrics).toHaveLength(1);
    expect(bare.count).toBe(2);
    expect(bare).toEqual(wrapped);
  });

  it('refuses a filter the search does not know with 400 METRIC_ALIAS_INVALID_INPUT (no raw filters reach the database)', async () => {
    expectFailure(await post('/alerts/v1/metric/alias/search', { request: { filters: { metric: { $like: '%' } } } }), 400, 'METRIC_ALIAS_INVALID_INPUT', /additional properties: 'metric'/);
  });
});

describe('notification channels: the request', () => {
  it.each([
    ['a type the gateway cannot deliver', { type: 'sms' }, /#properties\/type\/enum .*\(email, slack, teams\)/],
    ['a config field nobody reads', { config: { recipientAddresses: 'ops@example.com', color: 'red' } }, /#properties\/config\/additionalProperties must NOT have additional properties: 'color'/],
    [
      'labels whose values are not strings',
      { config: { recipientAddresses: 'ops@example.com', labels: { team: 1 } } },
      /#properties\/config\/properties\/labels\/additionalProperties\/type must be string/,
    ],
    ['no name', { name: undefined }, /#required must have required property 'name'/],
  ])('refuses %s with 400 NOTIFICATION_CHANNEL_INVALID_INPUT, and stores nothing', async (_, overrides, message) => {
    const body = { ...emailChannel(), ...overrides };
    expectFailure(await post('/alerts/v1/notifications/create', body), 400, 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
    expect(await channelsNamed(gw(), body.name ?? '')).toEqual([]);
  });

  it('refuses a search filter it does not know, or a status that is not one, with 400 NOTIFICATION_CHANNEL_INVALID_INPUT (no raw filters reach the database)', async () => {
    expectFailure(await post('/alerts/v1/notifications/search', { request: { filters: { config: { $ne: null } } } }), 400, 'NOTIFICATION_CHANNEL_INVALID_INPUT', /additional properties: 'config'/);
    expectFailure(await post('/alerts/v1/notifications/search', { request: { filters: { status: 'published' } } }), 400, 'NOTIFICATION_CHANNEL_INVALID_INPUT', /status/);
  });

  it('takes the status filter as one status or a list of them', async () => {
    const draft = await createOk('notifications/create', 'api.alert.notification.create', emailChannel());
    const live = await createOk('notifications/create', 'api.alert.notification.create', emailChannel());
    expectOk(await gw().http.get(`/alerts/v1/notifications/publish/${live}`), 'api.alert.notification.publish');
    const ids = async (status: unknown) =>
      (expectOk(await post('/alerts/v1/notifications/search', { request: { filters: { status } } }), 'api.alert.notification.list').notifications as { id: string }[]).map((c) => c.id);
    expect(await ids('live')).toEqual(expect.arrayContaining([live]));
    expect(await ids('live')).not.toContain(draft);
    expect(await ids(['draft', 'live'])).toEqual(expect.arrayContaining([draft, live]));
  });

  it("tests a stored channel the way the console's channel page sends it: the record it read, with its status and authors", async () => {
    const id = await createOk('notifications/create', 'api.alert.notification.create', emailChannel({ config: { recipientAddresses: 'page@example.com' } }));
    const record = expectOk(await gw().http.get(`/alerts/v1/notifications/get/${id}`), 'api.alert.notification.get');
    const { manager: _manager, ...payload } = record;
    const received = gw().fx.smtp.messages.length;
    expect(expectOk(await post('/alerts/v1/notifications/test', { message: 'Testing Email integration', payload }), 'api.alert.notification.test')).toMatchObject({ status: 'Notification Sent', id });
    expect(gw().fx.smtp.messages[received]!.to).toEqual(['page@example.com']);
  });

  it("accepts the console's UI flags beside a test message's channel (payload.error), and sends it", async () => {
    const received = gw().fx.smtp.messages.length;
    const body = {
      message: 'Disk almost full on node-3',
      payload: { error: { selectChannel: false, configureChannel: false }, manager: 'embedded', name: 'Ops mail', type: 'email', config: { recipientAddresses: 'ops@example.com;oncall@example.com' } },
    };
    expect(expectOk(await post('/alerts/v1/notifications/test', body), 'api.alert.notification.test')).toMatchObject({ status: 'Notification Sent', transport: 'smtp' });
    expect(gw().fx.smtp.messages[received]!.to).toEqual(['ops@example.com', 'oncall@example.com']);
  });

  it.each([
    ['no payload', { message: 'x' }, /#required must have required property 'payload'/],
    [
      'a payload that is neither a stored channel nor a whole channel',
      { message: 'x', payload: { manager: 'embedded', type: 'email' } },
      /#properties\/payload\/else\/required must have required property 'name'/,
    ],
  ])('refuses a test message with %s with 400 NOTIFICATION_CHANNEL_INVALID_INPUT, sending nothing', async (_, body, message) => {
    const sent = gw().fx.smtp.messages.length;
    expectFailure(await post('/alerts/v1/notifications/test', body), 400, 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
    expect(gw().fx.smtp.messages.length).toBe(sent);
  });
});
