// Notification channels and test messages (contract 4.6, reference §7), written once for both
// transports: e-mail, Slack and Teams channels, embedded or held by Grafana as contact points, what
// a channel must hold, the webhook allow-list (SSRF guard), their lifecycle (created as a draft,
// published to its manager: live, retired by delete and kept), read, search, update, and test
// messages over a real SMTP conversation with a local sink, to a local webhook receiver and through
// Grafana's receiver test. The scenarios of one transport share a database and the fixtures: every
// scenario uses channel names of its own.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { UUID_PATTERN } from '../support/api.js';
import { calls, channelsNamed, emailChannel, GRAFANA_TOKEN, header, slackChannel, type AlertingGateway, type ChannelBody, type ChannelConfig } from '../support/alerting.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

/** A channel as the REST contract spells it (manager and type in lower case, a config without empty fields). */
export interface Channel {
  id: string;
  manager: string;
  name: string;
  type: string;
  status: string;
  config: ChannelConfig;
  created_by: string;
  updated_by: string;
  createdAt: string;
  updatedAt: string;
}

/** What a test message answers: `id` only when a stored channel was tested. */
export interface TestReport {
  status: string;
  id?: string;
  transport: string;
  response: string;
}

export interface ChannelsDriver {
  /** The code with which this transport refuses a value its types do not allow: REST's NOTIFICATION_CHANNEL_INVALID_INPUT, GraphQL's BAD_USER_INPUT. */
  readonly typeRefusal: string;
  createChannel(channel: ChannelBody): Promise<Outcome<{ id: string }>>;
  readChannel(id: string): Promise<Outcome<Channel>>;
  /** The console's search: typed filters, and an order of `[field, direction]` pairs. */
  listChannels(
    filters: { manager?: string; type?: string; status?: string | string[]; id?: string; name?: string },
    order?: [string, string][],
  ): Promise<Outcome<{ notifications: Channel[]; count: number }>>;
  /** Creates a draft at its manager and makes it live; answers the original's `{id, status: "published"}`. */
  publishChannel(id: string): Promise<Outcome<{ id: string; status: string }>>;
  updateChannel(id: string, changes: Partial<ChannelBody>): Promise<Outcome<{ id: string }>>;
  deleteChannel(id: string): Promise<Outcome<{ id: string }>>;
  /** Sends a test message to a stored channel (`{id}`) or to the channel described. */
  testChannel(request: { message?: string; payload: { id: string } | ChannelBody }): Promise<Outcome<TestReport>>;
}

const SENT = 'Notification Sent';

export function channelScenarios(ctx: SuiteContext<ChannelsDriver, AlertingGateway>): void {
  const createOk = async (channel: ChannelBody) => expectOk(await ctx.driver.createChannel(channel)).id;
  /** Creates the channel and publishes it (live). */
  const liveOk = async (channel: ChannelBody) => {
    const id = await createOk(channel);
    expect(expectOk(await ctx.driver.publishChannel(id))).toEqual({ id, status: 'published' });
    return id;
  };
  const contactPointsSent = (id: string) => calls(ctx.gw.fx.grafana, 'POST', '/api/v1/provisioning/contact-points').filter((request) => request.body.uid === id);
  const readOk = async (id: string) => expectOk(await ctx.driver.readChannel(id));
  const stored = (name: string) => channelsNamed(ctx.gw, name);
  const slack = (overrides: Partial<ChannelBody> = {}) => slackChannel(ctx.gw.fx.webhook, overrides);

  describe('create', () => {
    it('creates an email channel as a draft, answers {id}, stores it and reads it back with its config', async () => {
      const body = emailChannel();
      const created = expectOk(await ctx.driver.createChannel(body));
      expect(created).toEqual({ id: expect.stringMatching(UUID_PATTERN) });
      const [row] = await stored(body.name);
      expect(row).toMatchObject({ id: created.id, manager: 'embedded', type: 'email', status: 'draft', config: body.config, created_by: 'SYSTEM' });
      const channel = await readOk(created.id);
      expect(channel).toMatchObject({ manager: 'embedded', name: body.name, type: 'email', status: 'draft', created_by: 'SYSTEM' });
      expect(channel.config).toEqual(body.config);
    });

    it('does not call Grafana when it stores a Grafana channel: the draft reaches Grafana when published', async () => {
      const body = slack({ manager: 'grafana' });
      const id = await createOk(body);
      expect(contactPointsSent(id)).toEqual([]);
      expect((await stored(body.name))[0]).toMatchObject({ manager: 'grafana', status: 'draft' });
    });

    it('publishes a Grafana channel as a contact point whose uid is the channel id, with the token and provenance off', async () => {
      const body = slack({ manager: 'grafana' });
      const id = await liveOk(body);
      const [sent] = contactPointsSent(id);
      expect(sent!.body).toEqual({ uid: id, name: body.name, type: 'slack', settings: { url: body.config.webhookUrl }, disableResolveMessage: false });
      expect(sent!.headers.authorization).toBe(`Bearer ${GRAFANA_TOKEN}`);
      expect(sent!.headers['x-disable-provenance']).toBe('true');
      expect((await stored(body.name))[0]).toMatchObject({ manager: 'grafana', status: 'live' });
    });

    it('sends Grafana an e-mail contact point with the addresses split and joined as Grafana wants them', async () => {
      const body = emailChannel({ manager: 'grafana', config: { recipientAddresses: ' ops@example.com ; dev@example.com; ', subject: 'Alert' } });
      const id = await liveOk(body);
      const [sent] = contactPointsSent(id);
      expect(sent!.body.settings).toEqual({ addresses: 'ops@example.com;dev@example.com', singleEmail: false, subject: 'Alert' });
    });

    it("stores a Slack channel's channel name (the console asks for it) and gives it to Grafana's Slack integration", async () => {
      const body = slack({ manager: 'grafana', config: { channel: 'ops-alerts', webhookUrl: `${ctx.gw.fx.webhook.url}/hooks/T000/B000` } });
      const id = await liveOk(body);
      expect((await readOk(id)).config).toEqual(body.config);
      expect(contactPointsSent(id)[0]!.body.settings).toEqual({ url: body.config.webhookUrl, recipient: 'ops-alerts' });
    });

    it('stores labels on a channel of any type', async () => {
      const labels = { team: 'ops', severity: 'page' };
      const email = emailChannel({ config: { recipientAddresses: 'ops@example.com', labels } });
      const teams = slack({ type: 'teams', config: { webhookUrl: 'https://contoso.webhook.office.com/webhookb2/abc', channel: 'General', labels } });
      expect((await readOk(await createOk(email))).config).toEqual(email.config);
      expect((await readOk(await createOk(teams))).config).toEqual(teams.config);
      expect((await stored(email.name))[0].config.labels).toEqual(labels);
    });

    it.each([
      ['an email channel without recipients', { config: { subject: 'x' } }, /config\.recipientAddresses is required for email channels/],
      ['a recipient that is not an e-mail address', { config: { recipientAddresses: 'ops@example.com;not-an-address' } }, /"not-an-address" is not a valid e-mail address/],
      ['a webhook URL on an email channel', { config: { recipientAddresses: 'ops@example.com', webhookUrl: 'https://hooks.slack.com/x' } }, /webhookUrl does not apply to email channels/],
      ['a Slack channel name on an email channel', { config: { recipientAddresses: 'ops@example.com', channel: 'ops' } }, /config\.channel does not apply to email channels/],
      [
        'a Slack channel name with a control character',
        { type: 'slack', config: { webhookUrl: 'https://hooks.slack.com/x', channel: 'ops\u0007' } },
        /config\.channel must not contain control characters/,
      ],
      // 5,000 characters is the gateway's own bound (the original has none): 50 addresses of 100 characters.
      ['recipients longer than 5,000 characters', { config: { recipientAddresses: `${'a'.repeat(4990)}@example.com` } }, /^config\.recipientAddresses must be at most 5000 characters$/],
      ['an empty name', { name: ' ' }, /^name must not be empty$/],
      ['a subject longer than 500 characters', { config: { recipientAddresses: 'ops@example.com', subject: 's'.repeat(501) } }, /^config\.subject must be at most 500 characters$/],
      ['Alertmanager as the manager (it has no API for receivers)', { manager: 'alertmanager' }, /manager "alertmanager" cannot hold notification channels/],
    ])('refuses %s with NOTIFICATION_CHANNEL_INVALID_INPUT, and stores nothing', async (_, overrides, message) => {
      const body = emailChannel(overrides);
      expectFailure(await ctx.driver.createChannel(body), 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
      expect(await stored(body.name)).toEqual([]);
    });

    it.each([
      ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/'],
      ['loopback on a port that is not listed', 'http://127.0.0.1:9/hook'],
      ['localhost, which is not listed', 'http://localhost/hook'],
      ['a host that only ends like an allowed one', 'https://evilhooks.slack.com.attacker.example/x'],
      ['a URL with credentials', 'http://user:secret@127.0.0.1:0/hook'],
    ])('refuses a webhook URL naming %s (SSRF guard) with NOTIFICATION_CHANNEL_INVALID_INPUT, and stores nothing', async (_, url) => {
      const body = slack({ config: { webhookUrl: url.replace(':0/', `:${ctx.gw.fx.webhook.port}/`) } });
      expectFailure(await ctx.driver.createChannel(body), 'NOTIFICATION_CHANNEL_INVALID_INPUT', /config\.webhookUrl (names host .* which is not in WEBHOOK_ALLOWED_HOSTS|must not carry credentials)/);
      expect(await stored(body.name)).toEqual([]);
    });

    it('accepts a webhook on an allowed wildcard domain', async () => {
      const body = slack({ type: 'teams', config: { webhookUrl: 'https://contoso.webhook.office.com/webhookb2/abc' } });
      const id = await createOk(body);
      expect((await stored(body.name))[0].config).toEqual({ webhookUrl: 'https://contoso.webhook.office.com/webhookb2/abc' });
      expect((await readOk(id)).config).toEqual({ webhookUrl: 'https://contoso.webhook.office.com/webhookb2/abc' });
    });

    it('fails with NOTIFICATION_CHANNEL_ALREADY_EXISTS for a name that is taken', async () => {
      const body = emailChannel();
      await createOk(body);
      expectFailure(await ctx.driver.createChannel({ ...body, type: 'slack', config: slack().config }), 'NOTIFICATION_CHANNEL_ALREADY_EXISTS', /already exists/);
      expect((await stored(body.name)).map((row) => row.type)).toEqual(['email']);
    });

    it('fails to publish with ALERT_MANAGER_FAILED when Grafana refuses the contact point, and the channel stays a draft', async () => {
      const body = emailChannel({ manager: 'grafana' });
      const id = await createOk(body);
      ctx.gw.fx.grafana.respond = () => ({ status: 400, body: { message: 'invalid settings', traceID: '' } });
      expectFailure(await ctx.driver.publishChannel(id), 'ALERT_MANAGER_FAILED', /Grafana at .* answered HTTP 400: .*invalid settings/);
      expect((await stored(body.name))[0].status).toBe('draft');
    });

    it('creates a channel without a manager (as the console does) at the default manager: Grafana, when it is configured', async () => {
      const { manager: _, ...body } = emailChannel();
      const id = await createOk(body);
      expect(await readOk(id)).toMatchObject({ manager: 'grafana', status: 'draft' });
    });
  });

  describe('read and list', () => {
    it('reads a channel with its config', async () => {
      const body = emailChannel();
      const id = await createOk(body);
      expect(await readOk(id)).toMatchObject({ id, manager: 'embedded', name: body.name, type: 'email', config: body.config, created_by: 'SYSTEM' });
    });

    it('fails with NOTIFICATION_CHANNEL_NOT_FOUND for an unknown channel', async () => {
      expectFailure(await ctx.driver.readChannel(randomUUID()), 'NOTIFICATION_CHANNEL_NOT_FOUND', /does not exist/);
    });

    it('lists channels with a count, filtered by manager and type', async () => {
      const id = await createOk(slack({ manager: 'grafana', type: 'teams' }));
      const found = expectOk(await ctx.driver.listChannels({ manager: 'grafana', type: 'teams' }));
      expect(found.notifications.map((channel) => channel.id)).toContain(id);
      expect(found.notifications.every((channel) => channel.manager === 'grafana' && channel.type === 'teams')).toBe(true);
      expect(found.count).toBe(found.notifications.length);
    });

    it('finds channels by status (one or several), by id and by name, as the console searches', async () => {
      const draft = await createOk(emailChannel());
      const live = await liveOk(emailChannel());
      const ids = async (filters: Parameters<ChannelsDriver['listChannels']>[0]) => expectOk(await ctx.driver.listChannels(filters)).notifications.map((channel) => channel.id);
      const liveOnes = expectOk(await ctx.driver.listChannels({ status: 'live' })).notifications;
      expect(liveOnes.map((channel) => channel.id)).toContain(live);
      expect(liveOnes.every((channel) => channel.status === 'live')).toBe(true);
      expect(await ids({ status: ['draft', 'retired'] })).toContain(draft);
      expect(await ids({ status: ['draft', 'retired'] })).not.toContain(live);
      expect(await ids({ id: live })).toEqual([live]);
      const name = (await readOk(draft)).name;
      expect(await ids({ name })).toEqual([draft]);
      expect(await ids({ id: 'not-a-channel-id' })).toEqual([]);
    });

    it('orders by name ascending or descending, and by creation time as the console asks ([["createdAt", "DESC"]])', async () => {
      const prefix = `order ${randomUUID()}`;
      const made = [];
      for (const letter of ['b', 'c', 'a']) made.push(await createOk(emailChannel({ name: `${prefix} ${letter}` })));
      const names = async (order: [string, string][]) =>
        expectOk(await ctx.driver.listChannels({}, order))
          .notifications.map((channel) => channel.name)
          .filter((name) => name.startsWith(prefix))
          .map((name) => name.slice(-1));
      expect(await names([['name', 'ASC']])).toEqual(['a', 'b', 'c']);
      expect(await names([['name', 'desc']])).toEqual(['c', 'b', 'a']);
      expect(await names([['createdAt', 'DESC']])).toEqual(['a', 'c', 'b']);
      expect(await names([['createdAt', 'ASC']])).toEqual(['b', 'c', 'a']);
      expect(made).toHaveLength(3);
    });

    // GraphQL's enums judge an order on both transports (REST sends a field or direction it does not spell as given).
    it.each([
      [
        'a field channels cannot be ordered by',
        [['config', 'ASC']],
        /^Variable "\$orderBy" got invalid value "config" at "orderBy\[0\]\.field"; Value "config" does not exist in "NotificationChannelOrderField" enum\./,
      ],
      [
        'a direction that is not one',
        [
          ['name', 'ASC'],
          ['createdAt', 'sideways'],
        ],
        /^Variable "\$orderBy" got invalid value "SIDEWAYS" at "orderBy\[1\]\.order"; Value "SIDEWAYS" does not exist in "SortOrder" enum\./,
      ],
    ])('refuses a search order with %s, naming it', async (_, order, message) => {
      expectFailure(await ctx.driver.listChannels({}, order as [string, string][]), ctx.driver.typeRefusal, message);
    });

    it("refuses an order of more keys than channels have fields to order by (the list contract's rule)", async () => {
      const order = ['name', 'type', 'status', 'createdAt', 'updatedAt', 'name'].map((field): [string, string] => [field, 'ASC']);
      expectFailure(await ctx.driver.listChannels({}, order), 'NOTIFICATION_CHANNEL_INVALID_INPUT', /^the order has 6 keys; notification channels can be ordered by at most 5 fields$/);
    });

    it.each([
      ['no status', [], /^filters\.status must have at least one item$/],
      ['11 statuses', Array.from({ length: 11 }, () => 'live'), /^the status filter lists 11 values; at most 10 are allowed$/],
    ])('refuses a status filter listing %s', async (_, status, message) => {
      expectFailure(await ctx.driver.listChannels({ status }), 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
    });

    it('refuses a channel id over 64 characters with NOTIFICATION_CHANNEL_INVALID_INPUT, naming its length', async () => {
      const message = /^the channel id must be at most 64 characters \(got 65\)$/;
      expectFailure(await ctx.driver.readChannel('x'.repeat(65)), 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
      expectFailure(await ctx.driver.deleteChannel('x'.repeat(65)), 'NOTIFICATION_CHANNEL_INVALID_INPUT', message);
    });
  });

  describe('lifecycle: draft, live, retired', () => {
    it('goes draft -> live (publish) -> retired (delete), each readable, as the original', async () => {
      const body = emailChannel({ manager: 'grafana' });
      const id = await createOk(body);
      expect((await readOk(id)).status).toBe('draft');
      expect(expectOk(await ctx.driver.publishChannel(id))).toEqual({ id, status: 'published' });
      expect((await readOk(id)).status).toBe('live');
      expect(contactPointsSent(id)).toHaveLength(1);
      expect(expectOk(await ctx.driver.deleteChannel(id))).toEqual({ id });
      expect(await readOk(id)).toMatchObject({ id, name: body.name, status: 'retired', config: body.config });
    });

    it('refuses to publish a live channel with NOTIFICATION_CHANNEL_CONFLICT, asking Grafana nothing more', async () => {
      const id = await liveOk(slack({ manager: 'grafana' }));
      expectFailure(await ctx.driver.publishChannel(id), 'NOTIFICATION_CHANNEL_CONFLICT', /already live/);
      expect(contactPointsSent(id)).toHaveLength(1);
      expect((await readOk(id)).status).toBe('live');
    });

    it('refuses to publish a retired channel with NOTIFICATION_CHANNEL_RETIRED', async () => {
      const id = await createOk(slack({ manager: 'grafana' }));
      expectOk(await ctx.driver.deleteChannel(id));
      expectFailure(await ctx.driver.publishChannel(id), 'NOTIFICATION_CHANNEL_RETIRED', /is retired and cannot be published/);
      expect(contactPointsSent(id)).toEqual([]);
      expect((await readOk(id)).status).toBe('retired');
    });

    it('fails to publish an unknown channel with NOTIFICATION_CHANNEL_NOT_FOUND', async () => {
      expectFailure(await ctx.driver.publishChannel(randomUUID()), 'NOTIFICATION_CHANNEL_NOT_FOUND', /does not exist/);
    });

    it('retires a draft without calling its manager, and refuses to change a retired channel', async () => {
      const body = emailChannel({ manager: 'grafana' });
      const id = await createOk(body);
      expectOk(await ctx.driver.deleteChannel(id));
      expect(calls(ctx.gw.fx.grafana, 'DELETE', `/api/v1/provisioning/contact-points/${id}`)).toEqual([]);
      expectFailure(await ctx.driver.updateChannel(id, { name: `${body.name} again` }), 'NOTIFICATION_CHANNEL_RETIRED', /is retired and cannot be changed/);
      expect((await stored(body.name))[0].status).toBe('retired');
    });

    it('tests a channel whatever its status', async () => {
      const { smtp } = ctx.gw.fx;
      const id = await createOk(emailChannel({ config: { recipientAddresses: 'status@example.com' } }));
      for (const step of ['draft', 'live', 'retired']) {
        if (step === 'live') expectOk(await ctx.driver.publishChannel(id));
        if (step === 'retired') expectOk(await ctx.driver.deleteChannel(id));
        const received = smtp.messages.length;
        expect(expectOk(await ctx.driver.testChannel({ message: `as ${step}`, payload: { id } }))).toMatchObject({ status: SENT, id });
        expect(smtp.messages[received]!.data).toContain(`as ${step}`);
      }
    });
  });

  describe('update and delete', () => {
    it('changes a live Grafana channel at Grafana first (PUT of its contact point), then in the record, and it stays live', async () => {
      const body = emailChannel({ manager: 'grafana' });
      const id = await liveOk(body);
      const config = { recipientAddresses: 'new@example.com' };
      expect(expectOk(await ctx.driver.updateChannel(id, { config }))).toEqual({ id });
      const [sent] = calls(ctx.gw.fx.grafana, 'PUT', `/api/v1/provisioning/contact-points/${id}`);
      expect(sent!.body.settings).toEqual({ addresses: 'new@example.com', singleEmail: true });
      expect((await stored(body.name))[0].config).toEqual(config);
      expect(await readOk(id)).toMatchObject({ config, status: 'live' });
    });

    it('changes a draft only in the record, asking Grafana nothing', async () => {
      const body = emailChannel({ manager: 'grafana' });
      const id = await createOk(body);
      expect(expectOk(await ctx.driver.updateChannel(id, { name: `${body.name} renamed` }))).toEqual({ id });
      expect(calls(ctx.gw.fx.grafana, 'PUT', `/api/v1/provisioning/contact-points/${id}`)).toEqual([]);
      expect(await readOk(id)).toMatchObject({ name: `${body.name} renamed`, status: 'draft' });
    });

    it('refuses a new type without a config for it, changing nothing', async () => {
      const body = emailChannel();
      const id = await createOk(body);
      expectFailure(await ctx.driver.updateChannel(id, { type: 'slack' }), 'NOTIFICATION_CHANNEL_INVALID_INPUT', /recipientAddresses does not apply to slack channels/);
      expect((await stored(body.name))[0].type).toBe('email');
    });

    it('leaves the record as it was when Grafana refuses the change', async () => {
      const body = emailChannel({ manager: 'grafana' });
      const id = await liveOk(body);
      ctx.gw.fx.grafana.respond = () => ({ status: 500, body: 'database is locked' });
      expectFailure(await ctx.driver.updateChannel(id, { name: `${body.name} renamed` }), 'ALERT_MANAGER_FAILED', /database is locked/);
      expect(await stored(body.name)).toHaveLength(1);
    });

    it('retires a live Grafana channel: removes it from Grafana and keeps the record, retired; retiring it again changes nothing', async () => {
      const body = slack({ manager: 'grafana' });
      const id = await liveOk(body);
      expect(expectOk(await ctx.driver.deleteChannel(id))).toEqual({ id });
      expect(calls(ctx.gw.fx.grafana, 'DELETE', `/api/v1/provisioning/contact-points/${id}`)).toHaveLength(1);
      expect((await stored(body.name))[0]).toMatchObject({ id, status: 'retired' });
      expect(expectOk(await ctx.driver.deleteChannel(id))).toEqual({ id });
      expect(calls(ctx.gw.fx.grafana, 'DELETE', `/api/v1/provisioning/contact-points/${id}`)).toHaveLength(1);
      expect((await readOk(id)).status).toBe('retired');
    });

    it('fails to delete an unknown channel with NOTIFICATION_CHANNEL_NOT_FOUND', async () => {
      expectFailure(await ctx.driver.deleteChannel(randomUUID()), 'NOTIFICATION_CHANNEL_NOT_FOUND', /does not exist/);
    });

    it('keeps the channel live when Grafana cannot remove the contact point', async () => {
      const body = slack({ manager: 'grafana' });
      const id = await liveOk(body);
      ctx.gw.fx.grafana.respond = () => ({ status: 409, body: { message: 'contact point is in use by a notification policy' } });
      expectFailure(await ctx.driver.deleteChannel(id), 'ALERT_MANAGER_FAILED', /in use by a notification policy/);
      expect((await stored(body.name))[0].status).toBe('live');
    });
  });

  describe('test messages', () => {
    it('sends an e-mail over SMTP to every address and answers "Notification Sent" with the server\'s reply', async () => {
      const { smtp } = ctx.gw.fx;
      const received = smtp.messages.length;
      const payload = { manager: 'embedded', name: 'Ops mail', type: 'email', config: { recipientAddresses: 'ops@example.com;oncall@example.com' } };
      expect(expectOk(await ctx.driver.testChannel({ message: 'Disk almost full on node-3', payload }))).toEqual({
        status: SENT,
        transport: 'smtp',
        response: expect.stringMatching(/^250 OK: message queued as /),
      });
      const mail = smtp.messages[received]!;
      expect(mail.to).toEqual(['ops@example.com', 'oncall@example.com']);
      expect(mail.from).toBe('alerts@localhost');
      expect(header(mail, 'Subject')).toBe('Test notification');
      expect(mail.data).toContain('Disk almost full on node-3');
    });

    it('tests a stored channel given by its id, with its subject, and answers its id', async () => {
      const { smtp } = ctx.gw.fx;
      const id = await createOk(emailChannel({ config: { recipientAddresses: 'stored@example.com', subject: 'Stored subject' } }));
      const received = smtp.messages.length;
      expect(expectOk(await ctx.driver.testChannel({ message: 'hello', payload: { id } }))).toMatchObject({ status: SENT, id, transport: 'smtp' });
      expect(smtp.messages[received]!.to).toEqual(['stored@example.com']);
      expect(header(smtp.messages[received]!, 'Subject')).toBe('Stored subject');
    });

    it("posts {text} to a Slack webhook and reports the webhook's answer", async () => {
      expect(expectOk(await ctx.driver.testChannel({ message: 'Ingestion lag above 5 minutes', payload: slack() }))).toEqual({ status: SENT, transport: 'webhook', response: 'HTTP 200: ok' });
      const [sent] = ctx.gw.fx.webhook.requests.filter((request) => request.body?.text === 'Ingestion lag above 5 minutes');
      expect(sent!.path).toBe('/hooks/T000/B000');
      expect(sent!.headers['content-type']).toBe('application/json');
    });

    it("fails with NOTIFICATION_FAILED and the webhook's answer when it refuses the message", async () => {
      ctx.gw.fx.webhook.respond = () => ({ status: 404, body: 'no_service' });
      expectFailure(await ctx.driver.testChannel({ message: 'x', payload: slack() }), 'NOTIFICATION_FAILED', /the webhook at 127\.0\.0\.1:\d+ answered HTTP 404: no_service/);
    });

    it("does not follow a webhook's redirect (it could lead to a host that is not allowed)", async () => {
      const { webhook } = ctx.gw.fx;
      const target = `/redirected-${randomUUID()}`;
      webhook.respond = (request) => (request.path === target ? { status: 200, body: 'ok' } : { status: 302, headers: { location: `${webhook.url}${target}` } });
      expectFailure(await ctx.driver.testChannel({ message: 'x', payload: slack() }), 'NOTIFICATION_FAILED', /redirect \(HTTP 302\), which the gateway does not follow/);
      expect(webhook.requests.filter((request) => request.path === target)).toEqual([]);
    });

    it('fails with NOTIFICATION_FAILED naming the address the SMTP server refused', async () => {
      ctx.gw.fx.smtp.refuse.add('gone@example.com');
      const payload = { manager: 'embedded', name: 'Mail', type: 'email', config: { recipientAddresses: 'ops@example.com;gone@example.com' } };
      expectFailure(await ctx.driver.testChannel({ message: 'x', payload }), 'NOTIFICATION_FAILED', /SMTP at smtp:\/\/127\.0\.0\.1:\d+\/? refused gone@example\.com/);
    });

    it("tests a Grafana channel through Grafana's receiver test and reports its result", async () => {
      const id = await createOk(emailChannel({ manager: 'grafana' }));
      expect(expectOk(await ctx.driver.testChannel({ message: 'via grafana', payload: { id } }))).toMatchObject({
        status: SENT,
        id,
        transport: 'grafana',
        response: expect.stringMatching(/^HTTP 200: .* ok$/),
      });
      const [sent] = calls(ctx.gw.fx.grafana, 'POST', '/api/alertmanager/grafana/config/api/v1/receivers/test').filter(
        (request) => request.body.receivers[0].grafana_managed_receiver_configs[0].uid === id,
      );
      expect(sent!.body.alert.annotations.description).toBe('via grafana');
    });

    it("fails with NOTIFICATION_FAILED and Grafana's reason when its receiver test fails", async () => {
      const id = await createOk(emailChannel({ manager: 'grafana' }));
      ctx.gw.fx.grafana.respond = () => ({
        status: 207,
        body: { receivers: [{ name: 'x', grafana_managed_receiver_configs: [{ name: 'x', uid: id, status: 'failed', error: 'SMTP not configured' }] }] },
      });
      expectFailure(await ctx.driver.testChannel({ payload: { id } }), 'NOTIFICATION_FAILED', /could not deliver the test message: SMTP not configured/);
    });

    it('refuses a webhook that is not allowed with NOTIFICATION_CHANNEL_INVALID_INPUT before calling anything', async () => {
      const { webhook } = ctx.gw.fx;
      const before = webhook.requests.length;
      const payload = slack({ config: { webhookUrl: 'http://10.0.0.5/internal-admin' } });
      expectFailure(await ctx.driver.testChannel({ message: 'x', payload }), 'NOTIFICATION_CHANNEL_INVALID_INPUT', /names host 10\.0\.0\.5/);
      expect(webhook.requests.length).toBe(before);
    });

    it('refuses a bad address with NOTIFICATION_CHANNEL_INVALID_INPUT, sending nothing', async () => {
      const { smtp } = ctx.gw.fx;
      const sent = smtp.messages.length;
      const payload = { manager: 'embedded', name: 'n', type: 'email', config: { recipientAddresses: 'a@b@c' } };
      expectFailure(await ctx.driver.testChannel({ payload }), 'NOTIFICATION_CHANNEL_INVALID_INPUT', /"a@b@c" is not a valid e-mail address/);
      expect(smtp.messages.length).toBe(sent);
    });

    it('refuses an empty message with NOTIFICATION_CHANNEL_INVALID_INPUT, sending nothing', async () => {
      const { smtp } = ctx.gw.fx;
      const sent = smtp.messages.length;
      expectFailure(await ctx.driver.testChannel({ message: ' ', payload: { id: randomUUID() } }), 'NOTIFICATION_CHANNEL_INVALID_INPUT', /^message must not be empty$/);
      expect(smtp.messages.length).toBe(sent);
    });

    it('refuses an update with nothing to change with NOTIFICATION_CHANNEL_INVALID_INPUT', async () => {
      const id = expectOk(await ctx.driver.createChannel(emailChannel())).id;
      expectFailure(await ctx.driver.updateChannel(id, {}), 'NOTIFICATION_CHANNEL_INVALID_INPUT', /^nothing to update: give name, type or config$/);
    });

    it('fails with NOTIFICATION_CHANNEL_NOT_FOUND for a stored channel that does not exist', async () => {
      expectFailure(await ctx.driver.testChannel({ payload: { id: randomUUID() } }), 'NOTIFICATION_CHANNEL_NOT_FOUND', /does not exist/);
    });
  });
}
