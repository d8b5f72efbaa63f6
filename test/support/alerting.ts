// Real servers the alerting tests talk to: an SMTP sink, an HTTP recorder (a webhook receiver, or a
// stand-in for Alertmanager's and Grafana's HTTP APIs that answers like them and records every
// call), a gateway started with them, and the real Prometheus Alertmanager binary when Debian's
// package is installed. Also what the tests send (silences, aliases, channels), find stored and see
// the managers asked.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach } from '@jest/globals';
import { findFreePort } from '../../src/platform/database/embedded.js';
import { startTestGateway, useForFile, type TestGateway, type TestGatewayOptions } from './gateway.js';
import type { ChannelConfig } from '../../src/modules/alerts/index.js';

// ---------------------------------------------------------------------------------------------
// SMTP sink
//
// The npm package smtp-server is not installed in this project (see the alerting issue's report),
// so the sink speaks the few SMTP commands a client needs itself: EHLO/HELO, MAIL, RCPT, DATA,
// RSET, NOOP, QUIT (RFC 5321), with no TLS and no authentication.

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent: headers, blank line, body (dot-unstuffed). */
  data: string;
}

export interface SmtpSink {
  url: string;
  messages: ReceivedMail[];
  /** Recipients the sink refuses with 550. */
  refuse: Set<string>;
  stop(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const refuse = new Set<string>();
  const server = net.createServer((socket) => {
    let buffer = '';
    let mail: ReceivedMail = { from: '', to: [], data: '' };
    let inData = false;
    let dataLines: string[] = [];
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 sink ESMTP ready');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            messages.push({ ...mail, data: dataLines.join('\r\n') });
            const id = randomUUID();
            reply(`250 OK: message queued as ${id}`);
            mail = { from: '', to: [], data: '' };
            dataLines = [];
          } else {
            dataLines.push(line.startsWith('..') ? line.slice(1) : line);
          }
          continue;
        }
        const command = line.slice(0, 4).toUpperCase();
        const address = /<([^>]*)>/.exec(line)?.[1] ?? '';
        if (command === 'EHLO' || command === 'HELO') reply('250-sink\r\n250 8BITMIME');
        else if (command === 'MAIL') {
          mail.from = address;
          reply('250 OK');
        } else if (command === 'RCPT') {
          if (refuse.has(address)) reply(`550 5.1.1 <${address}>: no such user`);
          else {
            mail.to.push(address);
            reply('250 OK');
          }
        } else if (command === 'DATA') {
          inData = true;
          reply('354 End data with <CR><LF>.<CR><LF>');
        } else if (command === 'RSET') {
          mail = { from: '', to: [], data: '' };
          reply('250 OK');
        } else if (command === 'NOOP') reply('250 OK');
        else if (command === 'QUIT') {
          reply('221 Bye');
          socket.end();
        } else reply('502 5.5.2 Command not implemented');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    refuse,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The decoded text of a header of a received message, e.g. Subject. */
export function header(mail: ReceivedMail, name: string): string | undefined {
  const head = mail.data.split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' ');
  return new RegExp(`^${name}: (.*)$`, 'mi').exec(head)?.[1];
}

// ---------------------------------------------------------------------------------------------
// HTTP recorder

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang-up';

export interface HttpRecorder {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Decides each answer; replace it in a test, `reset()` puts the default back. */
  respond: (request: RecordedRequest) => Answer;
  reset(): void;
  stop(): Promise<void>;
}

export async function startRecorder(defaultAnswer: (request: RecordedRequest) => Answer = () => ({ status: 200, body: 'ok' })): Promise<HttpRecorder> {
  const requests: RecordedRequest[] = [];
  const recorder = {} as HttpRecorder;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        // keep the text
      }
      const request = { method: req.method!, path: req.url!, headers: req.headers, body };
      requests.push(request);
      const answer = recorder.respond(request);
      if (answer === 'hang-up') {
        req.socket.destroy();
        return;
      }
      const payload = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json', ...answer.headers });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(recorder, {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    respond: defaultAnswer,
    reset: () => {
      recorder.respond = defaultAnswer;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return recorder;
}

/** Answers like Alertmanager's API v2 and Grafana's alerting API (the parts the gateway uses). */
export function managerApi(request: RecordedRequest): Answer {
  const { method, path: url, body } = request;
  if (method === 'POST' && url.endsWith('/api/v2/silences')) return { status: 200, body: { silenceID: body?.id ?? randomUUID() } };
  if (method === 'DELETE' && /\/api\/v2\/silence\/[^/]+$/.test(url)) return { status: 200 };
  if (method === 'POST' && url === '/api/v1/provisioning/contact-points') return { status: 202, body };
  if (method === 'PUT' && url.startsWith('/api/v1/provisioning/contact-points/')) return { status: 202, body };
  if (method === 'DELETE' && url.startsWith('/api/v1/provisioning/contact-points/')) return { status: 202 };
  if (method === 'POST' && url.endsWith('/config/api/v1/receivers/test')) {
    const receivers = (body?.receivers ?? []) as { name: string; grafana_managed_receiver_configs: { name: string; uid: string }[] }[];
    return {
      status: 200,
      body: { receivers: receivers.map((r) => ({ name: r.name, grafana_managed_receiver_configs: r.grafana_managed_receiver_configs.map((c) => ({ name: c.name, uid: c.uid, status: 'ok' })) })) },
    };
  }
  return { status: 404, body: { message: 'not found' } };
}

/** The data sources the fake Grafana holds: a Loki first, so the adapter must pick by type. */
export const GRAFANA_DATASOURCES = [
  { uid: 'loki-uid', name: 'Loki', type: 'loki' },
  { uid: 'prometheus-uid', name: 'Prometheus', type: 'prometheus' },
];

export interface FakeGrafanaGroup {
  name: string;
  interval: string;
  rules: Array<{ grafana_alert: { uid: string; title: string } & Record<string, unknown> } & Record<string, any>>;
}

/**
 * Answers like Grafana: managerApi's parts plus folders (a title is unique), data sources and the
 * ruler, which holds what it is given. The ruler reads a group with 202 (as Grafana does) or 404,
 * replaces a group whole on POST (refusing two rules with one uid, as Grafana does) and deletes one.
 * `groups` is keyed `<folder uid>/<group name>`.
 */
export function grafanaApi(): ((request: RecordedRequest) => Answer) & { folders: { uid: string; title: string }[]; groups: Map<string, FakeGrafanaGroup> } {
  const folders: { uid: string; title: string }[] = [];
  const groups = new Map<string, FakeGrafanaGroup>();
  const answer = (request: RecordedRequest): Answer => {
    const { method, path: url, body } = request;
    if (method === 'GET' && url === '/api/datasources') return { status: 200, body: GRAFANA_DATASOURCES };
    if (method === 'GET' && url.split('?')[0] === '/api/folders') return { status: 200, body: folders.map((folder, id) => ({ id: id + 1, ...folder })) };
    if (method === 'POST' && url === '/api/folders') {
      if (folders.some((folder) => folder.title === body?.title)) return { status: 409, body: { message: 'a folder with the same name already exists' } };
      const folder = { uid: `f${randomUUID().slice(0, 8)}`, title: body.title as string };
      folders.push(folder);
      return { status: 200, body: { id: folders.length, ...folder, url: `/dashboards/f/${folder.uid}/`, version: 1 } };
    }
    const ruler = /^\/api\/ruler\/grafana\/api\/v1\/rules\/([^/?]+)(?:\/([^/?]+))?$/.exec(url);
    if (ruler) {
      const folderUid = decodeURIComponent(ruler[1]!);
      const group = ruler[2] === undefined ? undefined : decodeURIComponent(ruler[2]);
      if (!folders.some((folder) => folder.uid === folderUid)) return { status: 404, body: { message: 'folder not found' } };
      const key = `${folderUid}/${group ?? body?.name}`;
      if (method === 'GET' && group !== undefined) return groups.has(key) ? { status: 202, body: groups.get(key) } : { status: 404, body: { message: 'rule group does not exist' } };
      if (method === 'DELETE' && group !== undefined) {
        groups.delete(key);
        return { status: 202, body: { message: 'rules deleted' } };
      }
      if (method === 'POST' && group === undefined) {
        const uids = (body.rules as { grafana_alert: { uid?: string } }[]).map((rule) => rule.grafana_alert.uid);
        const twice = uids.find((uid, index) => uid !== undefined && uids.indexOf(uid) !== index);
        if (twice) return { status: 400, body: { message: `rule has UID ${twice} that is already assigned to another rule` } };
        // What a GET answers: the rules as posted, with what Grafana adds to each.
        const rules: FakeGrafanaGroup['rules'] = (body.rules as FakeGrafanaGroup['rules']).map((rule) => ({
          ...rule,
          grafana_alert: { ...rule.grafana_alert, uid: rule.grafana_alert.uid ?? randomUUID(), namespace_uid: folderUid, rule_group: body.name, version: 1 },
        }));
        groups.set(key, { name: body.name, interval: body.interval, rules });
        return { status: 202, body: { message: 'rule group updated successfully' } };
      }
    }
    return managerApi(request);
  };
  return Object.assign(answer, { folders, groups });
}

// ---------------------------------------------------------------------------------------------
// Everything an alerting test gateway needs

export interface AlertingFixtures {
  alertmanager: HttpRecorder;
  /** Answers with grafanaApi(), whose state `grafanaState` shows. */
  grafana: HttpRecorder;
  grafanaState: ReturnType<typeof grafanaApi>;
  webhook: HttpRecorder;
  smtp: SmtpSink;
  dataDir: string;
  /** Gateway environment: both managers, SMTP, and the webhook receiver allowed by name. */
  env: Record<string, string>;
  /** Puts back every recorder's default answer and lets SMTP accept every recipient (after each test). */
  reset(): void;
  stop(): Promise<void>;
}

export const GRAFANA_TOKEN = 'glsa_test_token';

export async function startAlertingFixtures(): Promise<AlertingFixtures> {
  const grafanaState = grafanaApi();
  const [alertmanager, grafana, webhook, smtp] = await Promise.all([startRecorder(managerApi), startRecorder(grafanaState), startRecorder(), startSmtpSink()]);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-alerting-'));
  return {
    alertmanager,
    grafana,
    grafanaState,
    webhook,
    smtp,
    dataDir,
    env: {
      ALERTMANAGER_URL: alertmanager.url,
      GRAFANA_URL: grafana.url,
      GRAFANA_TOKEN,
      SMTP_URL: smtp.url,
      // Loopback is reachable only because it is listed, and only on the receiver's port.
      WEBHOOK_ALLOWED_HOSTS: `hooks.slack.com,*.webhook.office.com,127.0.0.1:${webhook.port}`,
      ALERT_MANAGER_TIMEOUT_MS: '2000',
      NOTIFY_TIMEOUT_MS: '2000',
      DATA_DIR: dataDir,
    },
    reset() {
      alertmanager.reset();
      grafana.reset();
      webhook.reset();
      smtp.refuse.clear();
    },
    async stop() {
      await Promise.all([alertmanager.stop(), grafana.stop(), webhook.stop(), smtp.stop()]);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A gateway with alerting fixtures of its own (started first, stopped after it). */
export interface AlertingGateway extends TestGateway {
  fx: AlertingFixtures;
}

/** An alerting gateway for the whole test file (useForFile), its fixtures reset after each test. */
export function useAlertingGateway(env: Record<string, string> = {}): () => AlertingGateway {
  const gw = useForFile(() => startAlertingGateway(env));
  afterEach(() => {
    gw().fx.reset();
  });
  return gw;
}

export async function startAlertingGateway(env: Record<string, string> = {}, options: TestGatewayOptions = {}): Promise<AlertingGateway> {
  const fx = await startAlertingFixtures();
  let gw: TestGateway;
  try {
    gw = await startTestGateway({ ...fx.env, ...env }, options);
  } catch (error) {
    await fx.stop();
    throw error;
  }
  return {
    ...gw,
    fx,
    async stop() {
      await gw.stop();
      await fx.stop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// What the alerting tests send (the REST contract's spelling: managers and types in lower case),
// what they find stored, and what the managers were asked. Every call makes ids and names of its own.

export function hoursFromNow(hours: number): string {
  return new Date(Date.now() + hours * 3_600_000).toISOString();
}

export interface SilenceBody {
  alertId: string;
  manager?: string;
  startDate: string;
  endDate: string;
  comment?: string;
}

/** A silence of a new alert at the embedded manager, from now for two hours. */
export function silenceBody(overrides: Partial<SilenceBody> = {}): SilenceBody {
  return { startDate: hoursFromNow(0), endDate: hoursFromNow(2), alertId: randomUUID(), manager: 'embedded', ...overrides };
}

export interface AliasBody {
  alias: string;
  component: string;
  metric: string;
  subComponent?: string;
  context?: unknown;
}

export function aliasBody(overrides: Partial<AliasBody> = {}): AliasBody {
  return { alias: `alias ${randomUUID()}`, component: 'Processing', metric: 'sum(rate(flink_failed_events_total{dataset="d1"}[5m]))', ...overrides };
}

/** A channel's config as requests send it: the domain's own shape. */
export type { ChannelConfig };

export interface ChannelBody {
  /** Optional: absent, the gateway's default manager holds the channel. */
  manager?: string;
  name: string;
  type: string;
  config: ChannelConfig;
}

export function emailChannel(overrides: Partial<ChannelBody> = {}): ChannelBody {
  return { manager: 'embedded', name: `mail ${randomUUID()}`, type: 'email', config: { recipientAddresses: 'ops@example.com;oncall@example.com', subject: 'Gateway alert' }, ...overrides };
}

/** A Slack channel posting to the fixtures' webhook receiver (whose host the gateway allows). */
export function slackChannel(webhook: HttpRecorder, overrides: Partial<ChannelBody> = {}): ChannelBody {
  return { manager: 'embedded', name: `slack ${randomUUID()}`, type: 'slack', config: { webhookUrl: `${webhook.url}/hooks/T000/B000` }, ...overrides };
}

async function rows(gw: TestGateway, sql: string, values: unknown[]): Promise<any[]> {
  return (await gw.sql(sql, values)).rows;
}

export const silencesOf = (gw: TestGateway, alertId: string) => rows(gw, 'SELECT * FROM alert_silences WHERE alert_id::text = $1', [alertId]);
export const aliasesNamed = (gw: TestGateway, alias: string) => rows(gw, 'SELECT * FROM metric_aliases WHERE alias = $1', [alias]);
export const channelsNamed = (gw: TestGateway, name: string) => rows(gw, 'SELECT * FROM notification_channels WHERE name = $1', [name]);

/** The calls a manager received with this method and a path containing `pathPart`. */
export function calls(recorder: { requests: RecordedRequest[] }, method: string, pathPart: string): RecordedRequest[] {
  return recorder.requests.filter((request) => request.method === method && request.path.includes(pathPart));
}

/** The silences a manager was asked to create or replace for this alert, oldest first. */
export function silencesSentFor(recorder: HttpRecorder, alertId: string): RecordedRequest[] {
  return calls(recorder, 'POST', '/api/v2/silences').filter((request) => request.body.matchers[0].value === alertId);
}

// ---------------------------------------------------------------------------------------------
// Prometheus Alertmanager (Debian package prometheus-alertmanager)

export function findBinary(name: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, name))
    .find((candidate) => existsSync(candidate));
}

export interface RunningAlertmanager {
  url: string;
  stop(): Promise<void>;
}

export async function startAlertmanager(binary: string): Promise<RunningAlertmanager> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-am-'));
  await writeFile(path.join(dir, 'alertmanager.yml'), 'route:\n  receiver: default\nreceivers:\n  - name: default\n');
  const port = await findFreePort();
  // An empty cluster address turns gossip off (otherwise it binds 0.0.0.0:9094).
  const args = [`--config.file=${path.join(dir, 'alertmanager.yml')}`, `--storage.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='];
  return spawnUntilReady('Alertmanager', binary, args, { port, dir, timeoutMs: 15_000 });
}

/**
 * Starts a daemon of the Prometheus family listening on 127.0.0.1:`port` and waits for its
 * /-/ready; stop() ends it and removes `dir`. Its last stderr lines are in the error when it fails.
 */
export async function spawnUntilReady(name: string, binary: string, args: string[], options: { port: number; dir: string; timeoutMs: number }): Promise<{ url: string; stop(): Promise<void> }> {
  const url = `http://127.0.0.1:${options.port}`;
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await rm(options.dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) return { url, stop };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not become ready: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
