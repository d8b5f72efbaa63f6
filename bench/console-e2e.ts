// The original Obsrv web console (Sanketika-Obsrv/obsrv-web-console) against the gateway, end to
// end, in headless Chromium (issue 21). One command (`npm run bench:console`):
//
//   1. builds the console's server and web bundle from the local mirror of its repository, or
//      reuses them (cached under CONSOLE_BUILD_DIR/<commit>);
//   2. starts the gateway on its embedded PostgreSQL with the variables of docs/console.md
//      "Running the original console against the gateway" (AUTH_MODE=jwt, no iss/aud check), and
//      gives the console a database of its own in the same cluster: its tables (dbScripts/all.sql)
//      and one admin user;
//   3. starts the console's server (ts-node) with its proxies pointed at the gateway;
//   4. drives Chromium through login, the dataset list, the dataset wizard and publishing, then the
//      screens an operator watches (issue 38): the home dashboard's figures after an ingest, the
//      dataset's "Last Synced Time" card (issue 51), a rule that fires shown by the alerts bell, and
//      a connector's configuration form; with a
//      screenshot, what the page showed, the console's API calls (browser side) and the gateway's
//      request lines after each step, and PASS/FAIL per screen at the end;
//   5. stops everything it started and exits non-zero naming the first step that failed.
//
// Not part of `npm test` or CI: it needs the mirror, Chromium and several minutes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import puppeteer, { type Browser, type HTTPResponse, type Page } from 'puppeteer-core';
import { Cleanups, log, positiveIntegerSetting, SettingError } from './support.js';
import { temporaryFolder } from './local-gateway.js';

const MIRROR = process.env.CONSOLE_MIRROR ?? '/work/.mirror/Sanketika-Obsrv+obsrv-web-console/repo';
const BUILD_ROOT = process.env.CONSOLE_BUILD_DIR ?? '/tmp/console-build';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT_ROOT = path.resolve(process.env.CONSOLE_E2E_OUT ?? '.data/console-e2e');
const BUILD_TIMEOUT_MS = 20 * 60_000;
/** The zone the console's date windows are written for (see runSteps). */
const CONSOLE_TIME_ZONE = 'Asia/Kolkata';

const USER_NAME = 'e2e_admin';
const PASSWORD = `e2e-${randomBytes(6).toString('hex')}`;

/** How long each step (and each start-up) took, printed at the end. */
const timings: { what: string; seconds: number; note: string }[] = [];

function since(started: number): number {
  return Math.round((Date.now() - started) / 100) / 10;
}

// ---------------------------------------------------------------------------------------------
// Child processes

interface RunOptions {
  cwd: string;
  env?: Record<string, string>;
  logFile: string;
  timeoutMs: number;
}

/** Runs a command to completion (its output in logFile); rejects with the command and the log's tail. */
async function run(command: string, args: string[], options: RunOptions): Promise<void> {
  const output = createWriteStream(options.logFile);
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    output.write(chunk);
    tail.push(...chunk.toString().split('\n'));
    tail.splice(0, Math.max(0, tail.length - 25));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const timer = setTimeout(() => stopGroup(child), options.timeoutMs);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exitCode) => resolve(exitCode));
    });
    if (code !== 0) {
      const how = code === null ? `was stopped after ${options.timeoutMs / 1000} s` : `exited with ${code}`;
      throw new Error(`\`${command} ${args.join(' ')}\` in ${options.cwd} ${how}; log ${options.logFile}:\n  ${tail.join('\n  ')}`);
    }
  } finally {
    clearTimeout(timer);
    output.end();
  }
}

/** Ends a detached child and its own children (the process group this script started). */
function stopGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

async function stopAndWait(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  stopGroup(child);
  const timer = setTimeout(() => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, timeoutMs);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// 1. The console's build, cached by the mirror's commit

async function gitHead(): Promise<string> {
  const child = spawn('git', ['--git-dir', MIRROR, 'rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`git --git-dir ${MIRROR} rev-parse HEAD: ${err.trim() || `exit ${code}`} (set CONSOLE_MIRROR to the console's git directory)`);
  return out.trim();
}

/** Runs a build step unless its stamp file says a previous run finished it. */
async function buildStep(dir: string, name: string, what: string, work: () => Promise<void>): Promise<void> {
  const stamp = path.join(dir, `.e2e-${name}`);
  if (existsSync(stamp)) {
    log(`build: ${what}: reused (${stamp})`);
    timings.push({ what: `build: ${what}`, seconds: 0, note: 'cached' });
    return;
  }
  log(`build: ${what}…`);
  const started = Date.now();
  await work();
  await writeFile(stamp, new Date().toISOString() + '\n');
  const seconds = since(started);
  log(`build: ${what}: done in ${seconds} s`);
  timings.push({ what: `build: ${what}`, seconds, note: 'built' });
}

async function buildConsole(): Promise<string> {
  const commit = await gitHead();
  const dir = path.join(BUILD_ROOT, commit);
  log(`console: ${MIRROR} at ${commit.slice(0, 12)}, build folder ${dir}`);
  await buildStep(dir, 'extracted', 'extract the sources (git archive)', async () => {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await run('bash', ['-c', 'set -o pipefail; git --git-dir="$1" archive "$2" | tar -x -C "$3"', 'extract', MIRROR, commit, dir], {
      cwd: BUILD_ROOT,
      logFile: path.join(BUILD_ROOT, `${commit}.extract.log`),
      timeoutMs: 120_000,
    });
  });
  await buildStep(dir, 'server-installed', "the server's npm install", () =>
    run('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, logFile: path.join(dir, '.e2e-server-install.log'), timeoutMs: BUILD_TIMEOUT_MS }),
  );
  const web = path.join(dir, 'web-console-v2');
  await buildStep(dir, 'web-installed', "the web bundle's npm install --legacy-peer-deps", () =>
    run('npm', ['install', '--legacy-peer-deps', '--no-audit', '--no-fund'], { cwd: web, logFile: path.join(dir, '.e2e-web-install.log'), timeoutMs: BUILD_TIMEOUT_MS }),
  );
  await buildStep(dir, 'web-built', 'the web bundle (react-scripts build), copied to src/build as its Dockerfile does', async () => {
    await rm(path.join(web, 'build'), { recursive: true, force: true });
    // CI=false: react-scripts would fail the build on the bundle's lint warnings.
    await run('npm', ['run', 'build'], { cwd: web, env: { CI: 'false', GENERATE_SOURCEMAP: 'false' }, logFile: path.join(dir, '.e2e-web-build.log'), timeoutMs: BUILD_TIMEOUT_MS });
    await rm(path.join(dir, 'src', 'build'), { recursive: true, force: true });
    await cp(path.join(web, 'build'), path.join(dir, 'src', 'build'), { recursive: true });
  });
  return dir;
}

// ---------------------------------------------------------------------------------------------
// 2. The gateway, with the console's variables, and the console's database beside it

interface GatewayLine {
  method: string;
  path: string;
  status: number;
  operation?: string;
}

interface Running {
  gatewayUrl: string;
  consoleUrl: string;
  consoleDir: string;
  gatewayLines: GatewayLine[];
}

async function startGatewayAndDatabase(cleanups: Cleanups, out: string, consoleDir: string, consolePort: number) {
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/logger.js');
  const { startEmbeddedPostgres } = await import('../src/platform/database/embedded.js');
  const { startGateway } = await import('../src/server.js');

  const started = Date.now();
  const folder = await temporaryFolder('console-e2e-');
  cleanups.push('temporary folder', () => folder.remove());
  const cluster = await startEmbeddedPostgres({ dataDir: path.join(folder.path, 'postgres'), port: 0, database: 'gateway' });
  cleanups.push('PostgreSQL', () => cluster.stop());

  // The console signs its users' tokens with this key (USER_TOKEN_PRIVATE_KEY); the gateway checks them with the public half.
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyFile = path.join(folder.path, 'console-token.pem');
  await writeFile(publicKeyFile, keys.publicKey.export({ type: 'spki', format: 'pem' }));
  const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  const consoleOrigin = `http://127.0.0.1:${consolePort}`;
  const gatewayEnv = {
    AUTH_MODE: 'jwt',
    JWT_PUBLIC_KEY_FILE: publicKeyFile,
    JWT_VERIFY_ISSUER: 'false',
    JWT_VERIFY_AUDIENCE: 'false',
    CORS_ALLOWED_ORIGINS: consoleOrigin,
    OBJECT_STORE_CORS_ORIGINS: consoleOrigin,
    CONNECTOR_UI_SPEC_FORMAT: 'console',
    // The bell's rule fires on sampled ingestion counters: sample and evaluate often, so it fires within a step.
    METRICS_SAMPLE_INTERVAL_SECONDS: '3',
    ALERT_EVALUATION_TICK_SECONDS: '2',
  };
  log(
    `gateway: ${Object.entries(gatewayEnv)
      .map(([key, value]) => `${key}=${key === 'JWT_PUBLIC_KEY_FILE' ? '<public half of the console key>' : value}`)
      .join(' ')}`,
  );

  const gatewayLines: GatewayLine[] = [];
  const gatewayLog = createWriteStream(path.join(out, 'gateway.log'));
  cleanups.push('gateway log', () => new Promise<void>((resolve) => gatewayLog.end(() => resolve())));
  const destination = {
    write(line: string) {
      gatewayLog.write(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; method?: string; path?: string; status?: number; operation?: string };
        if (entry.msg === 'request completed' || entry.msg === 'request failed') {
          gatewayLines.push({ method: entry.method ?? '?', path: entry.path ?? '?', status: entry.status ?? 0, ...(entry.operation ? { operation: entry.operation } : {}) });
        }
      } catch {
        // not a JSON line
      }
    },
  };
  const config = loadConfig({ DATABASE_URL: cluster.url, DATA_DIR: folder.path, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...gatewayEnv });
  const gateway = await startGateway(config, createLogger('info', destination));
  cleanups.push('gateway', () => gateway.stop());
  log(`gateway: ${gateway.url} (log ${path.join(out, 'gateway.log')})`);

  // The console's own database in the same cluster: its tables, and one user with the admin role.
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE console');
  } finally {
    await admin.end();
  }
  const consoleDbUrl = new URL(cluster.url);
  consoleDbUrl.pathname = '/console';
  await seedConsoleDatabase(consoleDbUrl.toString(), consoleDir);
  timings.push({ what: 'start the gateway and the databases', seconds: since(started), note: '' });
  return { gatewayUrl: gateway.url, gatewayLines, consoleDbUrl: consoleDbUrl.toString(), privateKey, consoleOrigin };
}

/** A token as the console's server signs its users' (RS256, its claims), for what its proxies send on their own (GF_BEARER_TOKEN). */
function consoleToken(privateKey: string): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const body = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({ id: 'e2e-admin-1', user_name: USER_NAME, email_address: 'e2e-admin@example.com', roles: ['admin'], is_owner: true, iat: now, exp: now + 6 * 3600 })}`;
  return `${body}.${createSign('RSA-SHA256').update(body).sign(privateKey, 'base64url')}`;
}

async function bcryptHash(consoleDir: string, password: string): Promise<string> {
  // bcryptjs from the console's own dependencies: the hash its login compares with.
  const child = spawn(process.execPath, ['-e', 'process.stdout.write(require("bcryptjs").hashSync(process.argv[1], 10))', password], { cwd: consoleDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`bcryptjs in ${consoleDir}: ${err.trim()}`);
  return out;
}

async function seedConsoleDatabase(url: string, consoleDir: string): Promise<void> {
  const script = await readFile(path.join(consoleDir, 'dbScripts', 'all.sql'), 'utf8');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(script);
    // all.sql's oauth_users has no roles, is_owner or status; the console's code reads all three
    // (its login copies roles into the token and the session; user_list filters roles with @>).
    await client.query(
      "ALTER TABLE oauth_users ADD COLUMN IF NOT EXISTS roles text[], ADD COLUMN IF NOT EXISTS is_owner boolean DEFAULT false, ADD COLUMN IF NOT EXISTS status varchar DEFAULT 'active'",
    );
    await client.query(
      "INSERT INTO oauth_users (id, user_name, password, first_name, last_name, email_address, roles, is_owner, status, created_on) VALUES ($1, $2, $3, 'e2e', 'admin', 'e2e-admin@example.com', $4, true, 'active', now())",
      ['e2e-admin-1', USER_NAME, await bcryptHash(consoleDir, PASSWORD), ['admin']],
    );
  } finally {
    await client.end();
  }
  log(`console database: dbScripts/all.sql applied, user ${USER_NAME} (roles {admin}, owner) added`);
}

// ---------------------------------------------------------------------------------------------
// 3. The console's server

async function startConsoleServer(cleanups: Cleanups, out: string, consoleDir: string, port: number, gateway: Awaited<ReturnType<typeof startGatewayAndDatabase>>) {
  const started = Date.now();
  const logFile = createWriteStream(path.join(out, 'console-server.log'));
  const env = {
    PORT: String(port),
    AUTHENTICATION_TYPE: 'basic',
    AUTHENTICATION_ALLOWED_TYPES: 'obsrv',
    BASE_URL: '/console',
    OAUTH_WEB_CONSOLE_URL: gateway.consoleOrigin,
    POSTGRES_CONNECTION_STRING: gateway.consoleDbUrl,
    SESSION_SECRET: randomBytes(24).toString('hex'),
    USER_TOKEN_PRIVATE_KEY: gateway.privateKey,
    CONFIG_API_URL: gateway.gatewayUrl,
    OBS_API_URL: gateway.gatewayUrl,
    SYSTEM_API_URL: gateway.gatewayUrl,
    PROMETHEUS_URL: gateway.gatewayUrl,
    ALERT_MANAGER_URL: gateway.gatewayUrl,
    GRAFANA_URL: gateway.gatewayUrl,
    GRAFANA_ADMIN_URL: gateway.gatewayUrl,
    // Its /alertmanager proxy (the alerts bell) sends this instead of the user's token, as it does to Grafana (docs/console.md table).
    GF_BEARER_TOKEN: `Bearer ${consoleToken(gateway.privateKey)}`,
    // Its OpenID Connect strategy is registered whatever AUTHENTICATION_TYPE says, and throws at
    // start-up without these; nothing contacts them with a basic login.
    AUTH_OIDC_ISSUER: 'http://127.0.0.1:9/oidc',
    AUTH_OIDC_AUTHRIZATION_URL: 'http://127.0.0.1:9/oidc/authorize',
    AUTH_OIDC_TOKEN_URL: 'http://127.0.0.1:9/oidc/token',
    AUTH_OIDC_USER_INFO_URL: 'http://127.0.0.1:9/oidc/userinfo',
    AUTH_OIDC_CLIENT_ID: 'unused',
    AUTH_OIDC_CLIENT_SECRET: 'unused',
    // ts-node type-checks the whole server otherwise (a minute more, same code).
    TS_NODE_TRANSPILE_ONLY: 'true',
  };
  log(`console server: ts-node ./src on ${gateway.consoleOrigin}, CONFIG_API_URL=OBS_API_URL=SYSTEM_API_URL=${gateway.gatewayUrl} (log ${path.join(out, 'console-server.log')})`);
  const child = spawn(path.join(consoleDir, 'node_modules', '.bin', 'ts-node'), ['./src'], { cwd: consoleDir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout?.pipe(logFile);
  child.stderr?.pipe(logFile);
  cleanups.push('console server', () => stopAndWait(child, 10_000));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the console's server exited with ${child.exitCode}; see ${path.join(out, 'console-server.log')}`);
    try {
      const response = await fetch(`${gateway.consoleOrigin}/console/login`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the console's server did not answer on ${gateway.consoleOrigin}/console/login within 120 s; see ${path.join(out, 'console-server.log')}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const seconds = since(started);
  log(`console server: up in ${seconds} s`);
  timings.push({ what: "start the console's server", seconds, note: '' });
}

// ---------------------------------------------------------------------------------------------
// 4. The browser and its steps

interface Call {
  method: string;
  path: string;
  status: number | string;
  /** For a failure: the start of the answer's body (for a preflight: the headers asked and allowed). */
  body?: string;
  /** For a failure: the start of the request's body. */
  sent?: string;
}

/** Marks the script's own status reads, so the report does not count them as the console's calls. */
const CHECK_HEADER = 'x-console-e2e-check';

interface StepReport {
  name: string;
  ok: boolean;
  seconds: number;
  screenshot: string;
  shown: string;
  outcome: string;
  calls: Call[];
  gatewayLines: GatewayLine[];
}

const API_PREFIXES = ['/console/config/', '/console/api/', '/console/system/', '/console/prom/', '/console/alertmanager/'];

function recordCalls(page: Page, gatewayOrigin: string): Call[] {
  const calls: Call[] = [];
  const wanted = (url: URL) => url.origin === gatewayOrigin || API_PREFIXES.some((prefix) => url.pathname.startsWith(prefix));
  const short = (url: URL) => url.pathname + (url.search.length > 80 ? `${url.search.slice(0, 80)}…` : url.search);
  page.on('response', (response: HTTPResponse) => {
    const url = new URL(response.url());
    if (!wanted(url)) return;
    const request = response.request();
    const mark = request.headers()[CHECK_HEADER] ? ' [status read by the script]' : '';
    const call: Call = { method: request.method(), path: short(url) + mark, status: response.status() };
    if (call.method === 'OPTIONS') {
      // A preflight: what the page asked to send, and what the server allowed.
      const asked = response.request().headers()['access-control-request-headers'] ?? '';
      const allowed = response.headers()['access-control-allow-headers'] ?? '';
      call.body = `asked for headers [${asked}], allowed [${allowed}], origin allowed ${response.headers()['access-control-allow-origin'] ?? '(none)'}`;
    }
    calls.push(call);
    if (response.status() >= 400) {
      const sent = request.postData();
      if (sent) call.sent = sent.replace(/\s+/g, ' ').slice(0, 300);
      response
        .text()
        .then((text) => (call.body = text.replace(/\s+/g, ' ').slice(0, 500)))
        .catch(() => undefined);
    }
  });
  page.on('requestfailed', (request) => {
    const url = new URL(request.url());
    if (wanted(url)) calls.push({ method: request.method(), path: short(url), status: `failed: ${request.failure()?.errorText ?? 'unknown'}` });
  });
  return calls;
}

async function shownText(page: Page): Promise<string> {
  const text = await page.evaluate(() => document.body?.innerText ?? '').catch(() => '');
  return text.replace(/\s+/g, ' ').trim().slice(0, 500);
}

/** Waits until the page has had no request in flight for a while (bounded; never fails). */
async function settle(page: Page, timeout = 15_000): Promise<void> {
  await page.waitForNetworkIdle({ idleTime: 800, timeout }).catch(() => undefined);
}

/** Clicks the first visible, enabled button-like element whose text is `text`. */
async function clickText(page: Page, text: string, timeout: number, selector = 'button, [role="button"], [role="menuitem"], [role="tab"], a, li'): Promise<void> {
  // React may replace the element between finding and clicking it (a busy machine widens that gap): find it again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await clickTextOnce(page, text, timeout, selector);
    } catch (error) {
      if (attempt >= 3 || !/detached|not clickable|not an element/i.test((error as Error).message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

async function clickTextOnce(page: Page, text: string, timeout: number, selector: string): Promise<void> {
  const handle = await page
    .waitForFunction(
      (wantedText: string, css: string) => {
        for (const element of Array.from(document.querySelectorAll<HTMLElement>(css))) {
          const rect = element.getBoundingClientRect();
          const disabled = (element as HTMLButtonElement).disabled || element.getAttribute('aria-disabled') === 'true' || element.classList.contains('Mui-disabled');
          if (element.innerText?.trim() === wantedText && rect.width > 0 && rect.height > 0 && !disabled) return element;
        }
        return false;
      },
      { timeout },
      text,
      selector,
    )
    .catch(() => {
      throw new Error(`no enabled "${text}" to click within ${timeout / 1000} s`);
    });
  const element = handle.asElement() as import('puppeteer-core').ElementHandle<Element> | null;
  if (!element) throw new Error(`"${text}" is not an element`);
  await element.click();
}

async function waitForPath(page: Page, pattern: RegExp, timeout: number): Promise<void> {
  await page
    .waitForFunction((source: string) => new RegExp(source).test(location.pathname), { timeout }, pattern.source)
    .catch(() => {
      throw new Error(`the page stayed on ${new URL(page.url()).pathname} (expected ${pattern}) for ${timeout / 1000} s`);
    });
}

/** Waits for the console's call whose path matches and says how the gateway answered it. */
function answered(page: Page, method: string, pathPart: string, timeout: number): Promise<HTTPResponse> {
  const response = page
    .waitForResponse((candidate) => candidate.request().method() === method && new URL(candidate.url()).pathname.includes(pathPart), { timeout })
    .catch(() => {
      throw new Error(`the console made no ${method} ${pathPart} call within ${timeout / 1000} s`);
    });
  // Awaited later, or never when an earlier wait of the step fails first.
  response.catch(() => undefined);
  return response;
}

/** Waits until the page shows `text` somewhere. */
async function waitForText(page: Page, text: string, timeout: number): Promise<void> {
  await page
    .waitForFunction((wanted: string) => document.body.innerText.includes(wanted), { timeout }, text)
    .catch(() => {
      throw new Error(`the page did not show "${text}" within ${timeout / 1000} s`);
    });
}

async function expectOk(response: HTTPResponse, what: string): Promise<void> {
  if (response.status() < 400) return;
  const text = await response.text().catch(() => '');
  let answer = text.replace(/\s+/g, ' ').slice(0, 300);
  try {
    const error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
    if (error?.code) answer = `${error.code}: ${error.message ?? ''}`;
  } catch {
    // not JSON: the start of the body
  }
  const sent = response.request().postData();
  throw new Error(
    `${what}: ${response.request().method()} ${new URL(response.url()).pathname} answered ${response.status()} ${answer}` +
      (sent ? ` (the console sent ${sent.replace(/\s+/g, ' ').slice(0, 300)})` : ''),
  );
}

/** The dataset's status as the gateway answers it through the console's proxy, read from the page (its session). */
async function datasetStatus(page: Page, datasetId: string): Promise<string> {
  return page.evaluate(
    async (id: string, header: string) => {
      for (const query of ['fields=status', 'mode=edit&fields=status']) {
        const response = await fetch(`/console/config/v2/datasets/read/${encodeURIComponent(id)}?${query}`, { headers: { [header]: '1' } });
        if (response.ok) return String(((await response.json()) as { result?: { status?: string } }).result?.status);
      }
      return 'not found';
    },
    datasetId,
    CHECK_HEADER,
  );
}

interface Step {
  name: string;
  run: (page: Page, timeout: number) => Promise<string>;
  /** A screen of its own: the steps after it still run when it fails (the wizard's steps depend on each other). */
  screen?: boolean;
}

/** A call the script makes through the console's proxies with the page's session (marked, so the report does not count it as the console's). */
async function callThroughConsole(page: Page, method: string, apiPath: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  return page.evaluate(
    async (verb: string, target: string, payload: string | null, header: string) => {
      const response = await fetch(target, { method: verb, headers: { [header]: '1', ...(payload ? { 'content-type': 'application/json' } : {}) }, body: payload ?? undefined });
      const text = await response.text();
      try {
        return { status: response.status, body: JSON.parse(text) as unknown };
      } catch {
        return { status: response.status, body: text.slice(0, 300) };
      }
    },
    method,
    apiPath,
    body === undefined ? null : JSON.stringify(body),
    CHECK_HEADER,
  );
}

/** The console's metrics call for one chart (its request names the chart's query id), and what the console's parse makes of the answer. */
function chartCall(page: Page, chartId: string, timeout: number): Promise<HTTPResponse> {
  const response = page
    .waitForResponse((candidate) => new URL(candidate.url()).pathname.endsWith('/config/v2/data/metrics') && (candidate.request().postData() ?? '').includes(`"id":"${chartId}"`), { timeout })
    .catch(() => {
      throw new Error(`the console asked for no ${chartId} figure within ${timeout / 1000} s`);
    });
  response.catch(() => undefined);
  return response;
}

/** lodash's sumBy over a dotted path, as the console's chart parsers read a groupBy answer. */
function sumOf(rows: unknown, dotted: string): number {
  if (!Array.isArray(rows)) return 0;
  return rows.reduce<number>((sum, row) => sum + (Number(dotted.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], row)) || 0), 0);
}

function steps(consoleUrl: string, out: string, datasetName: string): Step[] {
  const datasetId = datasetName.toLowerCase();
  const sampleFile = path.join(out, `${datasetId}-sample.json`);
  return [
    {
      name: 'login',
      async run(page, timeout) {
        await page.goto(`${consoleUrl}/console/login`, { waitUntil: 'domcontentloaded', timeout });
        await page.waitForSelector('input[name="username"]', { visible: true, timeout });
        await page.type('input[name="username"]', USER_NAME);
        await page.type('input[name="password"]', PASSWORD);
        const navigation = page.waitForNavigation({ timeout });
        // The page asked for the user before the login (401); this waits for the one after it.
        const user = page.waitForResponse((response) => new URL(response.url()).pathname === '/console/api/user/read' && response.status() === 200, { timeout });
        user.catch(() => undefined);
        await page.click('button[type="submit"]');
        await navigation;
        await waitForPath(page, /^\/console(?!\/login)/, timeout);
        await user.catch(() => {
          throw new Error(`no successful GET /console/api/user/read after the login within ${timeout / 1000} s`);
        });
        await settle(page);
        return `signed in as ${USER_NAME}; the console read the user (200); now on ${new URL(page.url()).pathname}`;
      },
    },
    {
      name: 'dataset-list',
      async run(page, timeout) {
        const list = answered(page, 'POST', '/config/v2/datasets/list', timeout);
        await page.goto(`${consoleUrl}/console/datasets`, { waitUntil: 'domcontentloaded', timeout });
        const response = await list;
        await expectOk(response, 'the dataset list');
        await settle(page);
        const body = (await response.json().catch(() => ({}))) as { result?: { count?: number } };
        return `dataset list answered ${response.status()} with ${body.result?.count ?? '?'} dataset(s)`;
      },
    },
    {
      name: 'wizard-start',
      async run(page, timeout) {
        await page.goto(`${consoleUrl}/console/dataset/create`, { waitUntil: 'domcontentloaded', timeout });
        await clickText(page, 'Create New Dataset', timeout);
        await waitForPath(page, /\/dataset\/edit\/connector\/list\//, timeout);
        await settle(page);
        await clickText(page, 'Skip', timeout);
        await waitForPath(page, /\/dataset\/edit\/ingestion\/meta\//, timeout);
        await settle(page);
        return 'new dataset → connector list → skipped the connector → ingestion form';
      },
    },
    {
      name: 'wizard-name-and-sample',
      async run(page, timeout) {
        const events = [
          { id: 'e1', ts: '2024-05-01T10:00:00Z', city: 'Pune', temperature: 31.5, device: { model: 'T-100', firmware: '1.2' } },
          { id: 'e2', ts: '2024-05-01T10:05:00Z', city: 'Delhi', temperature: 35.0, device: { model: 'T-200', firmware: '1.3' } },
        ];
        await writeFile(sampleFile, JSON.stringify(events, null, 2));
        const name = await page.waitForSelector('xpath///label[contains(., "Dataset Name")]/following::input[1]', { visible: true, timeout });
        await name!.click();
        await name!.type(datasetName);
        await page.keyboard.press('Tab');
        // The first of the two drop zones is "Upload Sample Data" (the second takes a JSON Schema).
        const input = await page.waitForSelector('input[type="file"]', { timeout });
        await (input as import('puppeteer-core').ElementHandle<HTMLInputElement>).uploadFile(sampleFile);
        await waitForText(page, 'Files Uploaded', timeout);
        await settle(page, 5_000);
        const create = answered(page, 'POST', '/config/v2/datasets/create', timeout);
        // Labelled "Create Schema" until the dataset id is filled in, "Proceed" after.
        await clickText(page, 'Proceed', timeout);
        await expectOk(await create, 'creating the dataset');
        await waitForPath(page, /\/dataset\/edit\/ingestion\/schema\//, timeout);
        await settle(page);
        return `named "${datasetName}", uploaded ${path.basename(sampleFile)} (2 events); schema inferred; draft created; now on the schema page`;
      },
    },
    {
      name: 'wizard-schema',
      async run(page, timeout) {
        await clickText(page, 'Proceed', timeout);
        await waitForPath(page, /\/dataset\/edit\/processing\//, timeout);
        await settle(page);
        return 'schema accepted → processing';
      },
    },
    {
      name: 'wizard-processing',
      async run(page, timeout) {
        await clickText(page, 'Proceed', timeout);
        await waitForPath(page, /\/dataset\/edit\/storage\//, timeout);
        await settle(page);
        return 'processing left as is → storage';
      },
    },
    {
      name: 'wizard-storage',
      async run(page, timeout) {
        await clickText(page, 'Proceed', timeout);
        await waitForPath(page, /\/dataset\/edit\/preview\//, timeout);
        await settle(page);
        return 'storage left as proposed → preview';
      },
    },
    {
      name: 'wizard-save',
      async run(page, timeout) {
        await clickText(page, 'Save Dataset', timeout);
        const transition = answered(page, 'POST', '/config/v2/datasets/status-transition', timeout);
        await clickText(page, 'Agree', timeout, '[role="dialog"] button');
        await expectOk(await transition, 'saving (ReadyToPublish)');
        await waitForPath(page, /\/console\/datasets/, timeout);
        await settle(page);
        const status = await datasetStatus(page, datasetId);
        if (status !== 'ReadyToPublish') throw new Error(`after saving, the gateway says the dataset is ${status} (expected ReadyToPublish)`);
        return 'saved: status-transition ReadyToPublish answered 200 and the gateway reads ReadyToPublish; back on the dataset list';
      },
    },
    {
      name: 'publish',
      async run(page, timeout) {
        const list = answered(page, 'POST', '/config/v2/datasets/list', timeout);
        await page.goto(`${consoleUrl}/console/datasets`, { waitUntil: 'domcontentloaded', timeout });
        await expectOk(await list, 'the dataset list');
        await settle(page);
        const opened = await page
          .waitForFunction(
            (wanted: string) => {
              for (const button of Array.from(document.querySelectorAll<HTMLElement>('button[aria-haspopup="true"]'))) {
                let card: HTMLElement | null = button.parentElement;
                while (card && card.querySelectorAll('button[aria-haspopup="true"]').length === 1) {
                  if (card.innerText.includes(wanted)) {
                    button.click();
                    return true;
                  }
                  card = card.parentElement;
                }
              }
              return false;
            },
            { timeout },
            datasetName,
          )
          .catch(() => undefined);
        if (!opened) throw new Error(`no dataset card showing "${datasetName}" with an action menu within ${timeout / 1000} s`);
        const transition = answered(page, 'POST', '/config/v2/datasets/status-transition', timeout);
        await clickText(page, 'Publish', timeout, '[role="menuitem"]');
        await expectOk(await transition, 'publishing (Live)');
        await settle(page);
        const status = await datasetStatus(page, datasetId);
        if (status !== 'Live') throw new Error(`after publishing, the gateway says the dataset is ${status} (expected Live)`);
        return `"Publish" from the card's menu: status-transition Live answered 200 and the gateway reads Live`;
      },
    },
    {
      name: 'dataset-list-after-publish',
      async run(page, timeout) {
        const list = answered(page, 'POST', '/config/v2/datasets/list', timeout);
        // With a Live dataset, the list reads its health before it shows any card.
        const health = answered(page, 'POST', '/config/v2/datasets/health', timeout);
        await page.goto(`${consoleUrl}/console/datasets`, { waitUntil: 'domcontentloaded', timeout });
        await expectOk(await list, 'the dataset list');
        await expectOk(await health, "the Live dataset's health, which the list waits for");
        await settle(page);
        await waitForText(page, datasetName, timeout);
        return `the list shows "${datasetName}"`;
      },
    },
    {
      name: 'home-figures',
      screen: true,
      async run(page, timeout) {
        // Five events (distinct ids), sent as a client of the gateway would, through the console's proxy.
        const events = Array.from({ length: 5 }, (_, i) => ({ id: `h${i}`, ts: new Date().toISOString(), city: 'Pune', temperature: 30 + i, device: { model: 'T-100', firmware: '1.2' } }));
        const ingest = await callThroughConsole(page, 'POST', `/console/config/v2/data/in/${encodeURIComponent(datasetId)}`, {
          id: 'api.data.in',
          ver: 'v2',
          ts: new Date().toISOString(),
          params: { msgid: `e2e-${Date.now()}` },
          data: events,
        });
        if (ingest.status !== 200) throw new Error(`ingesting 5 events answered ${ingest.status}: ${JSON.stringify(ingest.body).slice(0, 300)}`);
        const received = chartCall(page, 'totalEventsProcessedToday', timeout);
        const average = chartCall(page, 'avgProcessingTime', timeout);
        await page.goto(`${consoleUrl}/console/dashboard`, { waitUntil: 'domcontentloaded', timeout });
        const answer = await received;
        await expectOk(answer, "the home's Data Received (today)");
        const rows = ((await answer.json()) as { result?: unknown }).result;
        const figure = sumOf(rows, 'event.count');
        if (figure !== events.length) throw new Error(`Data Received (today) parses to ${figure} (expected ${events.length}); the gateway answered ${JSON.stringify(rows).slice(0, 300)}`);
        await expectOk(await average, "the home's average processing time");
        await page
          .waitForFunction((count: number) => new RegExp(`(^|\\s)${count}\\s*Events`).test(document.body.innerText), { timeout }, events.length)
          .catch(() => {
            throw new Error(`the home did not show "${events.length} Events" within ${timeout / 1000} s`);
          });
        await settle(page);
        // The ingestion section is below the fold: bring it into the screenshot.
        await page.evaluate(() => {
          const label = Array.from(document.querySelectorAll<HTMLElement>('span, p, h6, div')).find((element) => element.innerText?.trim() === 'Data Received (today)');
          label?.scrollIntoView({ block: 'center' });
        });
        return `ingested ${events.length} events; the home's Data Received (today) answered ${answer.status()} and shows "${events.length} Events"; its processing-time figures answered too`;
      },
    },
    {
      name: 'dataset-last-synced',
      screen: true,
      async run(page, timeout) {
        // The dataset's metrics page: its "Last Synced Time" card asks system-events for the latest
        // router row since 2000-01-01 (a Druid groupBy, longMax of __time) and shows it as "… ago".
        const synced = chartCall(page, 'lastSyncedTime', timeout);
        await page.goto(`${consoleUrl}/console/datasets/metrics/${encodeURIComponent(datasetId)}`, { waitUntil: 'domcontentloaded', timeout });
        const answer = await synced;
        await expectOk(answer, "the dataset card's last synced time");
        const sent = (answer.request().postData() ?? '').match(/"intervals":"([^"]+)"/)?.[1] ?? '?';
        const rows = ((await answer.json()) as { result?: { event?: { last_synced_time?: unknown } }[] }).result;
        const ms = Number(rows?.[0]?.event?.last_synced_time);
        if (!Number.isFinite(ms) || ms <= 0)
          throw new Error(`the last synced time parses to ${String(rows?.[0]?.event?.last_synced_time)} (the console would show N/A); the gateway answered ${JSON.stringify(rows).slice(0, 300)}`);
        const shown = await page
          .waitForFunction(
            () => {
              // The innermost card holding the label: its figure and the label only.
              const cards = Array.from(document.querySelectorAll<HTMLElement>('.MuiCardContent-root')).filter((card) => card.innerText.includes('Last Synced Time'));
              cards.sort((a, b) => a.innerText.length - b.innerText.length);
              const text = cards[0]?.innerText.replace(/\s+/g, ' ').trim() ?? '';
              return / ago\b/.test(text) ? text : false;
            },
            { timeout },
          )
          .then((handle) => handle.jsonValue() as Promise<string>)
          .catch(() => {
            throw new Error(`the "Last Synced Time" card did not show a time "… ago" within ${timeout / 1000} s`);
          });
        await settle(page);
        return `the dataset's metrics page asked for the last synced time over ${sent} (answered ${answer.status()}, ${new Date(ms).toISOString()}) and its card shows "${shown}"`;
      },
    },
    {
      name: 'alerts-bell',
      screen: true,
      async run(page, timeout) {
        const description = `Events arrive in ${datasetId}`;
        const created = await callThroughConsole(page, 'POST', '/console/config/alerts/v1/create', {
          name: `e2e events arrive ${Date.now().toString(36)}`,
          description,
          category: 'ingestion',
          severity: 'critical',
          frequency: '10s',
          interval: '0s',
          labels: { team: 'e2e' },
          metadata: { queryBuilderContext: { metric: `sum(increase(gateway_ingestion_events_total{dataset="${datasetId}", stage="received"}[5m]))`, operator: 'gt', threshold: [0] } },
          context: { alertType: 'CUSTOM' },
        });
        const id = (created.body as { result?: { id?: string } }).result?.id;
        if (created.status !== 200 || !id) throw new Error(`creating the rule answered ${created.status}: ${JSON.stringify(created.body).slice(0, 300)}`);
        const published = await callThroughConsole(page, 'GET', `/console/config/alerts/v1/publish/${id}`);
        if (published.status !== 200) throw new Error(`publishing the rule answered ${published.status}: ${JSON.stringify(published.body).slice(0, 300)}`);
        // Read as the bell reads it (its /alertmanager proxy, GF_BEARER_TOKEN), until the rule fires.
        const deadline = Date.now() + timeout;
        let state: string;
        let shownAs: string;
        for (;;) {
          const rules = await callThroughConsole(page, 'GET', '/console/alertmanager/api/prometheus/grafana/api/v1/rules');
          if (rules.status !== 200) throw new Error(`the rules API answered ${rules.status} through the console's /alertmanager proxy: ${JSON.stringify(rules.body).slice(0, 300)}`);
          type Rule = { uid?: string; state?: string; alerts?: { annotations?: { summary?: string; description?: string } }[] };
          const groups = (rules.body as { data?: { groups?: { rules?: Rule[] }[] } }).data?.groups ?? [];
          const rule = groups.flatMap((group) => group.rules ?? []).find((candidate) => candidate.uid === id);
          state = rule?.state ?? 'not listed';
          // What the bell lists for an alert: its summary, else its description.
          shownAs = rule?.alerts?.[0]?.annotations?.summary || rule?.alerts?.[0]?.annotations?.description || '';
          if (state === 'firing') break;
          if (Date.now() > deadline) throw new Error(`the rule is ${state}, not firing, after ${timeout / 1000} s`);
          await new Promise((resolve) => setTimeout(resolve, 2_000));
        }
        // The bell reads the rules when the page loads, shows their count, and lists them when opened.
        const bellRead = answered(page, 'GET', '/alertmanager/api/prometheus/grafana/api/v1/rules', timeout);
        await page.goto(`${consoleUrl}/console/dashboard`, { waitUntil: 'domcontentloaded', timeout });
        await expectOk(await bellRead, 'the alerts bell');
        const bell = await page.waitForSelector('[data-testid="NotificationsNoneOutlinedIcon"]', { visible: true, timeout });
        const badge = await page.evaluate(() => document.querySelector('.MuiBadge-badge')?.textContent ?? '');
        await bell!.click();
        const listed = shownAs.split('{{')[0]!.slice(0, 60);
        await waitForText(page, listed, timeout);
        return `rule ${id} created and published; the rules API says firing; the bell shows ${badge || 'no'} alert(s) and, opened, "${listed}…"`;
      },
    },
    {
      name: 'connector-form',
      screen: true,
      async run(page, timeout) {
        await page.goto(`${consoleUrl}/console/dataset/create`, { waitUntil: 'domcontentloaded', timeout });
        await clickText(page, 'Create New Dataset', timeout);
        await waitForPath(page, /\/dataset\/edit\/connector\/list\//, timeout);
        await settle(page);
        await clickText(page, 'Kafka', timeout, 'div, span, p, h2, h6');
        const read = answered(page, 'GET', '/config/v2/connectors/read/', timeout);
        await clickText(page, 'Proceed', timeout);
        await waitForPath(page, /\/dataset\/edit\/connector\/configure\//, timeout);
        const response = await read;
        await expectOk(response, "reading the connector's ui_spec");
        const spec = ((await response.json()) as { result?: { ui_spec?: { title?: string; properties?: Record<string, { title?: string }> } } }).result?.ui_spec;
        const titles = Object.values(spec?.properties ?? {})
          .map((property) => property.title)
          .filter((title): title is string => Boolean(title));
        if (titles.length === 0) throw new Error(`the connector's ui_spec has no titled properties: ${JSON.stringify(spec).slice(0, 300)}`);
        await settle(page);
        const shown = await page.evaluate((wanted: string[]) => wanted.filter((title) => document.body.innerText.includes(title)), titles);
        const fields = await page.evaluate(() => document.querySelectorAll('form input, form select, form textarea, form [role="combobox"]').length);
        if (shown.length < titles.length || fields === 0) {
          throw new Error(
            `the form shows ${shown.length} of the ui_spec's ${titles.length} field titles (${titles.filter((title) => !shown.includes(title)).join(', ')} missing) and ${fields} input(s)`,
          );
        }
        return `the Kafka form "${spec?.title ?? ''}" shows its ${titles.length} fields (${titles.join(', ')}), ${fields} input(s)`;
      },
    },
  ];
}

async function runSteps(browser: Browser, running: Running, out: string): Promise<StepReport[]> {
  const timeout = positiveIntegerSetting('CONSOLE_E2E_STEP_TIMEOUT_MS', 60_000);
  const page = await browser.newPage();
  // The console dates "today" as the browser's local date with India's offset written after it
  // (dayjs().format('YYYY-MM-DDT00:00:00+05:30')): right only in India's zone. In a UTC browser
  // between 18:30 and midnight its windows end before the events it should count.
  await page.emulateTimezone(CONSOLE_TIME_ZONE);
  page.setDefaultTimeout(timeout);
  page.setDefaultNavigationTimeout(timeout);
  const calls = recordCalls(page, new URL(running.gatewayUrl).origin);
  const consoleErrors: string[] = [];
  page.on('pageerror', (error) => consoleErrors.push(String((error as Error).message ?? error)));
  const datasetName = `e2e-weather-${Date.now().toString(36)}`;
  const reports: StepReport[] = [];
  const list = steps(running.consoleUrl, out, datasetName);
  for (const [index, step] of list.entries()) {
    const label = `${String(index + 1).padStart(2, '0')}-${step.name}`;
    const firstCall = calls.length;
    const firstLine = running.gatewayLines.length;
    const started = Date.now();
    let ok = true;
    let outcome: string;
    let timer: NodeJS.Timeout | undefined;
    try {
      // A step's own waits are bounded by `timeout`; this bounds the step as a whole.
      outcome = await Promise.race([
        step.run(page, timeout),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the step took more than ${(2 * timeout) / 1000} s`)), 2 * timeout))),
      ]);
    } catch (error) {
      ok = false;
      outcome = (error as Error).message;
    } finally {
      clearTimeout(timer);
    }
    const seconds = since(started);
    // What the page settles on (after a failure too: its error screen rather than its spinner).
    await settle(page, 5_000);
    const screenshot: `${string}.png` = path.join(out, `${label}.png`) as `${string}.png`;
    await page.screenshot({ path: screenshot, fullPage: false }).catch((error: Error) => (outcome += ` (no screenshot: ${error.message})`));
    const report: StepReport = {
      name: label,
      ok,
      seconds,
      screenshot,
      shown: await shownText(page),
      outcome,
      calls: calls.slice(firstCall),
      gatewayLines: running.gatewayLines.slice(firstLine),
    };
    reports.push(report);
    timings.push({ what: `step ${label}`, seconds, note: ok ? 'ok' : 'FAILED' });
    printStep(report);
    // A failed wizard step leaves nothing for the next one; a failed screen leaves the others to try.
    if (!ok && !step.screen) break;
  }
  if (consoleErrors.length > 0)
    log(
      `\nuncaught errors in the page:\n  ${consoleErrors
        .slice(0, 10)
        .map((error) => error.split('\n')[0])
        .join('\n  ')}`,
    );
  printFailedCalls(reports);
  log('\nscreens:');
  for (const [index, step] of list.entries()) {
    const report = reports[index];
    log(`  ${report ? (report.ok ? 'PASS' : 'FAIL') : 'NOT RUN'}  ${String(index + 1).padStart(2, '0')}-${step.name}${report ? `  ${report.screenshot}` : ''}`);
  }
  return reports;
}

function printStep(report: StepReport): void {
  log(`\n== ${report.name}: ${report.ok ? 'ok' : 'FAILED'} in ${report.seconds} s — ${report.outcome}`);
  log(`   screenshot: ${report.screenshot}`);
  log(`   page showed: ${report.shown || '(nothing)'}`);
  log(`   console API calls (browser → console server → gateway):`);
  printCounted(report.calls.map((call) => `${call.method} ${call.path} → ${call.status}${call.body ? `  ${call.body}` : ''}${call.sent ? `\n         sent: ${call.sent}` : ''}`));
  log(`   gateway request lines:`);
  printCounted(report.gatewayLines.map((line) => `${line.method} ${line.path} → ${line.status}${line.operation ? ` (${line.operation})` : ''}`));
}

/** Every call of the console that failed, once per route, status and error code, with the step that first made it. */
function printFailedCalls(reports: StepReport[]): void {
  const seen = new Map<string, string>();
  for (const report of reports) {
    for (const call of report.calls) {
      const failed = typeof call.status === 'string' || call.status >= 400;
      if (!failed || call.path.includes('[status read by the script]')) continue;
      const code = /"code":"([A-Z_]+)"/.exec(call.body ?? '')?.[1] ?? '';
      const key = `${call.method} ${call.path.split('?')[0]} → ${call.status} ${code}`;
      if (!seen.has(key)) seen.set(key, `${report.name}: ${call.method} ${call.path.split('?')[0]} → ${call.status}${call.body ? `  ${call.body.slice(0, 260)}` : ''}`);
    }
  }
  log('\nfailed console calls (first step that made each):');
  for (const line of seen.values()) log(`  ${line}`);
  if (seen.size === 0) log('  (none)');
}

/** Prints lines in their first order, each once, with how many times it came (metrics calls repeat). */
function printCounted(lines: string[]): void {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  for (const [line, count] of counts) log(`     ${line}${count > 1 ? `  (×${count})` : ''}`);
  if (lines.length === 0) log('     (none)');
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  if (!existsSync(CHROMIUM)) throw new SettingError(`no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);
  const out = path.join(OUT_ROOT, new Date().toISOString().replace(/[:.]/g, '-'));
  await mkdir(out, { recursive: true });
  log(`console-e2e: screenshots and logs in ${out}`);
  const cleanups = new Cleanups();
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`\n${signal}: stopping what was started…`);
    void cleanups.runAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  let failure: string | undefined;
  let reports: StepReport[] = [];
  try {
    const consoleDir = await buildConsole().catch((error: Error) => {
      throw new Error(`building the console: ${error.message}`);
    });
    const { findFreePort } = await import('../src/platform/database/embedded.js');
    const consolePort = await findFreePort();
    const gateway = await startGatewayAndDatabase(cleanups, out, consoleDir, consolePort).catch((error: Error) => {
      throw new Error(`starting the gateway: ${error.message}`);
    });
    await startConsoleServer(cleanups, out, consoleDir, consolePort, gateway).catch((error: Error) => {
      throw new Error(`starting the console's server: ${error.message}`);
    });
    const started = Date.now();
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      protocolTimeout: 120_000,
      defaultViewport: { width: 1400, height: 900 },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      ],
    });
    cleanups.push('browser', () => browser.close());
    timings.push({ what: 'start Chromium', seconds: since(started), note: '' });
    reports = await runSteps(browser, { gatewayUrl: gateway.gatewayUrl, consoleUrl: gateway.consoleOrigin, consoleDir, gatewayLines: gateway.gatewayLines }, out);
    const failed = reports.find((report) => !report.ok);
    if (failed) failure = `step ${failed.name}: ${failed.outcome}`;
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    if (!stopping) {
      stopping = true;
      if (!(await cleanups.runAll())) failure ??= 'could not stop everything it started';
    }
  }

  log('\ntimings:');
  for (const timing of timings) log(`  ${timing.what.padEnd(90)} ${String(timing.seconds).padStart(6)} s  ${timing.note}`);
  await writeFile(path.join(out, 'report.json'), JSON.stringify({ timings, steps: reports, failure: failure ?? null }, null, 2));
  log(`\nreport: ${path.join(out, 'report.json')}`);
  if (failure) {
    log(`\nconsole-e2e FAILED at ${failure}`);
    return 1;
  }
  log(`\nconsole-e2e: all ${reports.length} steps passed`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof SettingError ? error.message : error);
    process.exit(2);
  },
);
