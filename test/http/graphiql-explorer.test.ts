// GraphiQL for people who explore, in headless Chromium (puppeteer-core) offline (every host but
// 127.0.0.1 unresolvable): a field ticked in the explorer becomes the query and its answer shows;
// an example of graphql/operations/ opens in a tab and runs; the GraphQL twin linked from a REST
// operation of /docs opens and runs; and the Headers tab starts with what the auth mode needs.
// Skipped, with the reason, where Chromium is absent.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { describeWhenInstalled } from '../support/skip.js';
import { GATEWAY_VERSION } from '../../src/version.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const maybe = describeWhenInstalled(existsSync(CHROMIUM), 'chromium');
const LOAD = { timeout: 60_000 };

/** The text of the query editor, as the reader sees it. */
const queryText = (page: Page) => page.evaluate(() => (document.querySelector('.graphiql-query-editor .view-lines')?.textContent ?? '').replace(/\u00a0/g, ' '));

/** Presses run and waits until the result pane shows `expected`. */
async function runAndSee(page: Page, expected: RegExp): Promise<string> {
  await page.click('.graphiql-execute-button');
  // The pane wraps long lines: its text is read with every run of white space as one space.
  const responseText = () => page.evaluate(() => (document.querySelector('.graphiql-response')?.textContent ?? '').replace(/[\s\u00a0]+/g, ' '));
  for (const started = Date.now(); Date.now() - started < LOAD.timeout; await new Promise((resolve) => setTimeout(resolve, 200))) {
    const text = await responseText();
    if (expected.test(text)) return text;
  }
  throw new Error(`the result pane never showed ${String(expected)}; it shows: ${await responseText()}\nthe query editor shows: ${await queryText(page)}`);
}

/** A fresh gateway on `env`, and Chromium that reaches nothing but 127.0.0.1. */
async function gatewayAndBrowser(env: Record<string, string>): Promise<{ gw: TestGateway; browser: Browser }> {
  const gw = await startTestGateway(env);
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
  return { gw, browser };
}

maybe('GraphiQL for people who explore, in headless Chromium', () => {
  let gw: TestGateway;
  let browser: Browser;
  beforeAll(async () => {
    ({ gw, browser } = await gatewayAndBrowser({}));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });

  /** A page in a context of its own: GraphiQL keeps tabs and the open pane in the origin's storage. */
  async function open(path: string): Promise<Page> {
    const page = await (await browser.createBrowserContext()).newPage();
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto(`${gw.url}${path}`, LOAD);
    return page;
  }

  it('builds a query from a field ticked in the explorer and shows its answer', async () => {
    const page = await open('/graphql?panel=explorer&query=');
    const field = '.graphiql-explorer-root [data-field-name="version"]';
    await page.waitForSelector(field, LOAD);
    await page.click(field);
    await page.waitForFunction(() => /\{\s*version\s*\}/.test((document.querySelector('.graphiql-query-editor .view-lines')?.textContent ?? '').replace(/\u00a0/g, ' ')), LOAD);
    expect(await runAndSee(page, /"version": *"/)).toContain(`"version": "${GATEWAY_VERSION}"`);
    await page.screenshot({ path: '/tmp/gateway-graphiql-explorer.png' });
    await page.close();
  }, 180_000);

  it('opens an operation of graphql/operations/ from the examples in a new tab, and runs it', async () => {
    const page = await open('/graphql?panel=examples');
    const tabs = async () => page.$$eval('.graphiql-tab', (nodes) => nodes.length);
    const example = 'button[data-example="GetGatewayVersion"]';
    await page.waitForSelector(example, LOAD);
    expect(await page.$$eval('button.gateway-example', (buttons) => buttons.length)).toBeGreaterThanOrEqual(50);
    const before = await tabs();
    await page.click(example);
    await page.waitForFunction(() => /query GetGatewayVersion/.test((document.querySelector('.graphiql-query-editor .view-lines')?.textContent ?? '').replace(/\u00a0/g, ' ')), LOAD);
    expect(await tabs()).toBeGreaterThan(before);
    expect(await queryText(page)).toMatch(/query GetGatewayVersion/);
    expect(await runAndSee(page, /"version": *"/)).toContain(`"version": "${GATEWAY_VERSION}"`);
    await page.close();
  }, 180_000);

  it("opens the GraphQL twin a REST operation's reference links to, and runs it", async () => {
    const created = await gw.http.post('/v2/template/create').send({
      id: 'api.query.template.create',
      ver: 'v2',
      ts: '2026-01-01T00:00:00Z',
      params: { msgid: 'twin' },
      request: { template_name: 'Twin link', query_type: 'sql', query: 'SELECT * FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}' },
    });
    expect(created.status).toBe(200);
    const reference = (await gw.http.get('/openapi.json')).body as { paths: Record<string, Record<string, { description: string }>> };
    const href = /\]\((\/graphql\?query=[^)]+)\)/.exec(reference.paths['/v2/template/list']!.post!.description)?.[1];
    expect(href).toBeDefined();
    const page = await open(href!);
    await page.waitForFunction(() => /query RestListTemplates/.test((document.querySelector('.graphiql-query-editor .view-lines')?.textContent ?? '').replace(/\u00a0/g, ' ')), LOAD);
    expect(await runAndSee(page, /"template_id": "twin_link"/)).toMatch(/"templates": \{ "nodes": \[/);
    await page.close();
  }, 180_000);

  it('starts the Headers tab empty where the auth mode needs no header: nothing is sent but the preflight header', async () => {
    const page = await (await browser.createBrowserContext()).newPage();
    const sent: Record<string, string>[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/graphql') sent.push(request.headers());
    });
    await page.goto(`${gw.url}/graphql`, LOAD);
    await page.waitForFunction(() => document.querySelector('.graphiql-query-editor .view-lines'), LOAD);
    for (const started = Date.now(); sent.length === 0 && Date.now() - started < 60_000;) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sent[0]).toMatchObject({ 'apollo-require-preflight': 'true' });
    expect(sent[0]!.authorization).toBeUndefined();
    await page.close();
  }, 180_000);
});

maybe('GraphiQL on a gateway with AUTH_MODE=jwt, in headless Chromium', () => {
  let gw: TestGateway;
  let browser: Browser;
  beforeAll(async () => {
    ({ gw, browser } = await gatewayAndBrowser({ AUTH_MODE: 'jwt', JWT_SECRET: 'a-secret-of-at-least-thirty-two-characters', JWT_ISSUER: 'https://issuer.test', JWT_AUDIENCE: 'gateway' }));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });

  it('prefills the bearer header, which GraphiQL sends, and the refusal says what to send', async () => {
    const page = await browser.newPage();
    const sent: Record<string, string>[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/graphql') sent.push(request.headers());
    });
    await page.goto(`${gw.url}/graphql?query=${encodeURIComponent('{ templates(first: 1) { totalCount } }')}`, LOAD);
    await page.waitForFunction(() => /templates/.test(document.querySelector('.graphiql-query-editor .view-lines')?.textContent ?? ''), LOAD);
    const answer = await runAndSee(page, /Token verification failed/);
    expect(sent.map((headers) => headers.authorization)).toContain('Bearer <paste a JWT here>');
    expect(answer).toMatch(/Token verification failed/);
    await page.close();
  }, 180_000);
});
