// The notifiers on real transports: nodemailer speaking SMTP to a local sink, the outbox folder
// used when no SMTP server is configured, webhooks posted to a local HTTP receiver, and the
// webhook allow list that keeps the gateway from calling hosts it was not told to (the original's
// SSRF hole). Plus the configuration that feeds them.
import { readdir, readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config.js';
import { GatewayError } from '../../src/errors.js';
import { findFreePort } from '../../src/platform/database/embedded.js';
import { createNotifier } from '../../src/platform/notifier/notifier.js';
import { OutboxEmailSender, SmtpEmailSender } from '../../src/platform/notifier/smtp.js';
import { WebhookPolicy, WebhookSender } from '../../src/platform/notifier/webhook.js';
import { header, startRecorder, startSmtpSink, type HttpRecorder, type SmtpSink } from '../support/alerting.js';
import { startTestGateway } from '../support/gateway.js';
import { startSilentServer } from '../support/http-stub.js';

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected a failure');
}

describe('WebhookPolicy (SSRF guard)', () => {
  const policy = new WebhookPolicy(['hooks.slack.com', '*.webhook.office.com', '127.0.0.1:8080', '[::1]:9000', 'relay.internal']);

  it.each([
    'https://hooks.slack.com/services/T0/B0/x',
    'https://contoso.webhook.office.com/webhookb2/a',
    'https://a.b.webhook.office.com/x',
    'http://127.0.0.1:8080/hook',
    'http://[::1]:9000/hook',
    'http://relay.internal:1234/any-port-when-the-entry-names-none',
    'HTTPS://HOOKS.SLACK.COM/upper-case-host',
  ])('allows %s', (url) => {
    expect(policy.check(url)).toBeUndefined();
  });

  it.each([
    ['a host not listed', 'https://example.com/hook', /names host example\.com, which is not in WEBHOOK_ALLOWED_HOSTS \(hooks\.slack\.com, \*\.webhook\.office\.com/],
    ['the bare domain of a wildcard entry', 'https://webhook.office.com/x', /names host webhook\.office\.com/],
    ['a host that only ends like a wildcard domain', 'https://evilwebhook.office.com/x', /names host evilwebhook\.office\.com/],
    ['loopback on a port not listed', 'http://127.0.0.1:8081/hook', /names host 127\.0\.0\.1:8081/],
    ['loopback written as a decimal number (URL parsing makes it 127.0.0.1)', 'http://2130706433:8081/', /names host 127\.0\.0\.1:8081/],
    ['another loopback address', 'http://127.0.0.2:8080/', /names host 127\.0\.0\.2:8080/],
    ['localhost', 'http://localhost:8080/', /names host localhost:8080/],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/', /names host 169\.254\.169\.254/],
    ['IPv6 loopback on a port not listed', 'http://[::1]:9001/', /names host \[::1\]:9001/],
    ['credentials in the URL', 'https://user:pw@hooks.slack.com/x', /must not carry credentials/],
    ['another scheme', 'file:///etc/passwd', /must be an http or https URL \(got file:\)/],
    ['text that is not a URL', 'hooks.slack.com/x', /is not a URL/],
  ])('refuses %s', (_, url, reason) => {
    expect(policy.check(url)).toMatch(reason);
  });

  it('never lets a wildcard match an IP address', () => {
    expect(new WebhookPolicy(['*.0.0.1']).check('http://127.0.0.1/')).toMatch(/names host 127\.0\.0\.1/);
  });

  it('refuses everything when the list is empty', () => {
    expect(new WebhookPolicy([]).check('https://hooks.slack.com/x')).toMatch(/not in WEBHOOK_ALLOWED_HOSTS \(empty\)/);
  });
});

describe('WebhookSender', () => {
  let receiver: HttpRecorder;
  let sender: WebhookSender;
  beforeAll(async () => {
    receiver = await startRecorder();
    sender = new WebhookSender(new WebhookPolicy([`127.0.0.1:${receiver.port}`]), 500);
  });
  afterAll(async () => {
    await receiver?.stop();
  });
  afterEach(() => {
    receiver.reset();
  });

  it('posts the payload as JSON and reports the status and body the webhook answered', async () => {
    const report = await sender.send(`${receiver.url}/hook`, { text: 'hi' });
    expect(report).toEqual({ transport: 'webhook', response: 'HTTP 200: ok' });
    const sent = receiver.requests.at(-1)!;
    expect({ method: sent.method, path: sent.path, type: sent.headers['content-type'], body: sent.body }).toEqual({ method: 'POST', path: '/hook', type: 'application/json', body: { text: 'hi' } });
  });

  it('checks the allow list again when sending, not only when the channel was saved', async () => {
    const before = receiver.requests.length;
    const error = await failureOf(new WebhookSender(new WebhookPolicy([]), 500).send(`${receiver.url}/hook`, { text: 'hi' }));
    expect(error.code).toBe('NOTIFICATION_FAILED');
    expect(receiver.requests.length).toBe(before);
  });

  it('fails with NOTIFICATION_FAILED when the webhook does not answer in time', async () => {
    const silent = await startSilentServer();
    try {
      const { port } = silent;
      const error = await failureOf(new WebhookSender(new WebhookPolicy([`127.0.0.1:${port}`]), 200).send(`http://127.0.0.1:${port}/`, { text: 'x' }));
      expect(error.message).toMatch(/could not be reached \(no answer within 200 ms\)/);
    } finally {
      await silent.stop();
    }
  });
});

describe('SmtpEmailSender (nodemailer over SMTP)', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    await sink?.stop();
  });

  it("delivers the message to every recipient and reports the server's reply", async () => {
    const sender = new SmtpEmailSender({ url: sink.url, from: 'Gateway <gw@example.com>', timeoutMs: 2000 });
    const report = await sender.send(['a@example.com', 'b@example.com'], 'Subject line', 'Body text');
    expect(report.transport).toBe('smtp');
    expect(report.response).toMatch(/^250 OK: message queued as /);
    const mail = sink.messages.at(-1)!;
    expect(mail).toMatchObject({ from: 'gw@example.com', to: ['a@example.com', 'b@example.com'] });
    expect(header(mail, 'Subject')).toBe('Subject line');
    expect(header(mail, 'From')).toBe('Gateway <gw@example.com>');
    expect(mail.data.split('\r\n\r\n').slice(1).join('\r\n\r\n').trim()).toBe('Body text');
  });

  it('fails with NOTIFICATION_FAILED naming a refused recipient, even when others were taken', async () => {
    sink.refuse.add('nobody@example.com');
    const sender = new SmtpEmailSender({ url: sink.url, from: 'gw@example.com', timeoutMs: 2000 });
    const error = await failureOf(sender.send(['a@example.com', 'nobody@example.com'], 's', 't'));
    expect(error.code).toBe('NOTIFICATION_FAILED');
    expect(error.message).toMatch(/refused nobody@example\.com/);
  });

  it('fails with NOTIFICATION_FAILED when no SMTP server listens, without the password in the message', async () => {
    const port = await findFreePort();
    const sender = new SmtpEmailSender({ url: `smtp://user:hunter2@127.0.0.1:${port}`, from: 'gw@example.com', timeoutMs: 1000 });
    const error = await failureOf(sender.send(['a@example.com'], 's', 't'));
    expect(error.code).toBe('NOTIFICATION_FAILED');
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.message).not.toContain('hunter2');
  });
});

describe('OutboxEmailSender and the gateway without SMTP_URL', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-outbox-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the message as an .eml file and reports where', async () => {
    const outbox = path.join(dir, 'direct');
    const report = await new OutboxEmailSender(outbox, 'gw@example.com').send(['a@example.com'], 'Outbox subject', 'Outbox body');
    const [file] = await readdir(outbox);
    expect(report).toEqual({ transport: 'outbox', response: `written to ${path.join(outbox, file!)}` });
    const eml = await readFile(path.join(outbox, file!), 'utf8');
    expect(eml).toMatch(/^Subject: Outbox subject$/m);
    expect(eml).toMatch(/^To: a@example\.com$/m);
    expect(eml).toContain('Outbox body');
  });

  it('answers a REST e-mail test with transport "outbox" and the file in DATA_DIR/outbox', async () => {
    const gw = await startTestGateway({ DATA_DIR: dir });
    try {
      const response = await gw.http.post('/alerts/v1/notifications/test').send({
        message: 'written, not sent',
        payload: { manager: 'embedded', name: 'Mail', type: 'email', config: { recipientAddresses: 'ops@example.com' } },
      });
      expect(response.status).toBe(200);
      expect(response.body.result).toMatchObject({ status: 'Notification Sent', transport: 'outbox', response: expect.stringContaining(path.join(dir, 'outbox')) });
      const [file] = await readdir(path.join(dir, 'outbox'));
      expect(await readFile(path.join(dir, 'outbox', file!), 'utf8')).toContain('written, not sent');
    } finally {
      await gw.stop();
    }
  });
});

describe('alerting configuration', () => {
  it('has no managers but the embedded one, the outbox, and Slack/Teams hosts allowed by default', () => {
    const alerting = loadConfig({}).alerting;
    expect(alerting).toMatchObject({ outboxDir: './.data/outbox', webhookAllowedHosts: ['hooks.slack.com', '*.webhook.office.com', '*.logic.azure.com'] });
    expect(alerting.alertmanager).toBeUndefined();
    expect(alerting.grafana).toBeUndefined();
    expect(alerting.smtp).toBeUndefined();
    expect(createNotifier(alerting).description).toMatch(/outbox folder \.\/\.data\/outbox/);
  });

  it('reports every bad alerting setting at once, each by name', () => {
    let error: unknown;
    try {
      loadConfig({ ALERTMANAGER_URL: 'am:9093', GRAFANA_URL: 'ftp://grafana', SMTP_URL: 'http://mail', WEBHOOK_ALLOWED_HOSTS: 'https://hooks.slack.com/x', NOTIFY_TIMEOUT_MS: '5' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['ALERTMANAGER_URL', 'GRAFANA_URL', 'SMTP_URL', 'WEBHOOK_ALLOWED_HOSTS', 'NOTIFY_TIMEOUT_MS']) expect(problems).toContain(name);
  });

  it('reads host lists with spaces and ports', () => {
    expect(loadConfig({ WEBHOOK_ALLOWED_HOSTS: ' hooks.slack.com , 127.0.0.1:8080,[::1]:9000 ' }).alerting.webhookAllowedHosts).toEqual(['hooks.slack.com', '127.0.0.1:8080', '[::1]:9000']);
  });
});
