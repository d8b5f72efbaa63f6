// GraphiQL runs a subscription in the browser: headless Chromium (driven by puppeteer-core) opens
// /graphql offline (every host but 127.0.0.1 unresolvable), runs an ingestionCounts subscription
// over the page's WebSocket, and the count of an ingest shows in the result pane. Skipped, with the
// reason, where Chromium is absent.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import puppeteer, { type Browser } from 'puppeteer-core';
import { envelope } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { unique } from '../support/ingestion.js';
import { describeWhenInstalled } from '../support/skip.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const maybe = describeWhenInstalled(existsSync(CHROMIUM), 'chromium');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

maybe('GraphiQL subscriptions in headless Chromium', () => {
  let gw: TestGateway;
  let browser: Browser | undefined;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });

  it('runs ingestionCounts over the WebSocket: the count of an ingest arrives in the result pane', async () => {
    const id = unique('graphiql_live').replace(/-/g, '_');
    await seedDataset(gw, id, 'Live');
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
    });
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    const query = `subscription { ingestionCounts(datasetId: "${id}", every: 1) { t eventsIn } }`;
    await page.goto(`${gw.url}/graphql?autorun=1&query=${encodeURIComponent(query)}`, { timeout: 90_000 });
    // The page opened its WebSocket and subscribed (the button pressed once the editors are up).
    for (const started = Date.now(); gw.gateway.subscriptions.stats().evaluations < 1;) {
      if (Date.now() - started > 90_000) throw new Error('GraphiQL did not subscribe within 90 s');
      await sleep(100);
    }
    expect(gw.gateway.subscriptions.stats().webSockets).toBe(1);
    // Events in every step until the pane shows a count above zero (the pane shows the latest point).
    const shown = async () => page.evaluate(() => (document.querySelector('.graphiql-response')?.textContent ?? '').replace(/\u00a0/g, ' '));
    let text = '';
    for (let n = 0; n < 60 && !/"eventsIn": *[1-9]/.test(text); n += 1) {
      const ingested = await gw.http.post(`/v2/data/in/${id}`).send({ ...envelope('api.data.in', undefined, unique('m')), data: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] });
      expect(ingested.status).toBe(200);
      await gw.gateway.metricsSampler!.sample(Date.now());
      await sleep(500);
      text = await shown();
    }
    expect(text).toMatch(/"ingestionCounts": *\{ *"t": *"[^"]+", *"eventsIn": *[1-9]/);
    await page.screenshot({ path: '/tmp/gateway-graphiql-subscription.png' });
  }, 180_000);
});
