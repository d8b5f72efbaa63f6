// /docs (the REST API reference) and /graphql (GraphiQL) render in headless Chromium with every
// host but 127.0.0.1 unresolvable, so nothing can come from a CDN: screenshots go to /tmp and the
// rendered DOM must show the loaded content. Skipped, with the reason, where Chromium is absent.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { restEndpoints } from '../../rest/endpoints.js';
import { openApiPath } from '../../rest/openapi.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { describeWhenInstalled } from '../support/skip.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const run = promisify(execFile);

/** Runs headless Chromium on `url` offline (loopback only): answers the DOM, and writes a screenshot to `screenshot` when given (the same run). */
async function chromium(url: string, screenshot?: string): Promise<string> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'gateway-chromium-'));
  try {
    const args = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--user-data-dir=${profile}`,
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      '--window-size=1400,900',
      // Virtual time only advances when the page is idle; parsing the 5 MB GraphiQL bundle on a
      // loaded machine needs more of it than a quiet one.
      '--virtual-time-budget=60000',
      '--dump-dom',
      ...(screenshot ? [`--screenshot=${screenshot}`] : []),
      url,
    ];
    const { stdout } = await run(CHROMIUM, args, { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

const maybe = describeWhenInstalled(hasChromium, 'chromium');

maybe('pages in headless Chromium, offline', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('renders /docs: the reference lists every REST route, and a screenshot is saved', async () => {
    const shot = '/tmp/gateway-docs.png';
    const dom = await chromium(`${gw.url}/docs`, shot);
    expect(dom).toContain('Data Platform Gateway — REST API');
    expect(dom).not.toContain('Loading the API reference');
    expect(dom).not.toMatch(/Failed to load API definition/);
    const paths = new Set([...dom.matchAll(/data-path="([^"]+)"/g)].map((match) => match[1]));
    for (const endpoint of restEndpoints) expect(paths).toContain(openApiPath(endpoint.path));
    expect((await stat(shot)).size).toBeGreaterThan(20_000);
  }, 120_000);

  it('renders /graphql: GraphiQL loads its editors with the query, and a screenshot is saved', async () => {
    const shot = '/tmp/gateway-graphiql.png';
    const page = `${gw.url}/graphql?autorun=1&query=${encodeURIComponent('{ version }')}`;
    let dom = await chromium(page, shot);
    // Monaco tokenises the query a moment after the page settles; on a loaded machine the DOM can
    // be dumped before that. Render again (at most twice more) before judging the content.
    const tokenised = /<span class="mtk\d+">version&nbsp;<\/span>|>version</;
    for (let attempt = 0; attempt < 2 && !tokenised.test(dom); attempt++) dom = await chromium(page);
    expect(dom).toContain('graphiql-container');
    expect(dom).toContain('graphiql-execute-button');
    expect(dom).not.toContain('Loading GraphiQL');
    // The editor (Monaco) is mounted with the query from the URL. (The screenshot, taken after the
    // DOM in the same run, shows the answer of the query it ran.)
    expect(dom).toContain('monaco-editor');
    expect(dom).toMatch(tokenised);
    expect((await stat(shot)).size).toBeGreaterThan(20_000);
  }, 120_000);

  it("opens GraphiQL's Docs pane: the schema's root types are listed (the introspection query passes the limits)", async () => {
    const page = `${gw.url}/graphql?docs=1`;
    let dom = await chromium(page);
    // The pane fills in after the introspection answer; on a loaded machine render once more.
    if (!dom.includes('graphiql-doc-explorer-type-name')) dom = await chromium(page);
    expect(dom).not.toContain('Error fetching schema');
    expect(dom).toMatch(/graphiql-doc-explorer-type-name[^>]*>\s*Query\s*</);
  }, 120_000);
});
