// The README and docs/*.md hold as the tour does: every link between them (and to files of the
// repository) resolves, to a heading where it names one; the README's map names every page; every
// setting they tell a reader to set is one the gateway reads; every shell block marked
// `<!-- runnable -->` runs as written against a fresh gateway and answers without an error (and
// what the page shows after it, when it shows an answer).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { environmentSchema } from '../../src/config.js';
import { configVariables } from '../../src/config-reference.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { abridged, runExample, shellExamples } from '../support/markdown-examples.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => `docs/${name}`)];
const text = (page: string) => readFileSync(path.join(ROOT, page), 'utf8');

/** The text outside fenced blocks, where Markdown links and headings live. */
const prose = (markdown: string) => markdown.replace(/```[\s\S]*?```/g, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function anchors(page: string): Set<string> {
  return new Set([...prose(text(page)).matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

/** Settings the pages may tell a reader to set that the gateway itself does not read, and who does. */
const READ_BY_OTHERS: [RegExp, string][] = [
  [/^OTEL_/, 'the OpenTelemetry SDK'],
  [/^BENCH_/, 'the benchmarks'],
  [/^GF_/, 'Grafana'],
  [/^(GATEWAY_CI|RECORD_REST_ANSWERS)$/, 'the test suite'],
];

describe('the README and docs/*.md', () => {
  it('link only to files that exist and to headings those files have', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const [, target] of prose(text(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
        if (!existsSync(path.join(ROOT, resolved))) broken.push(`${page}: ${target} (no file ${resolved})`);
        else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('are all in the README’s map of the docs', () => {
    const readme = text('README.md');
    expect(PAGES.filter((page) => page !== 'README.md' && !readme.includes(`](${page})`))).toEqual([]);
  });

  it('tell a reader to set only settings the gateway reads (or name who reads them)', () => {
    const secrets = new Set(configVariables().filter((variable) => variable.secret).map((variable) => variable.name));
    const known = (name: string) => name in environmentSchema.shape || (name.endsWith('_FILE') && secrets.has(name.slice(0, -'_FILE'.length))) || READ_BY_OTHERS.some(([pattern]) => pattern.test(name));
    const unknown = PAGES.flatMap((page) => [...text(page).matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g)].map((match) => `${page}: ${match[1]}`).filter((entry) => !known(entry.split(': ')[1]!)));
    expect(unknown).toEqual([]);
  });

  it('name, in the README and the troubleshooting page, only settings the gateway reads', () => {
    const named = ['README.md', 'docs/troubleshooting.md'].flatMap((page) => [...text(page).matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((match) => match[1]!));
    expect(named).toEqual(expect.arrayContaining(['REQUEST_BODY_LIMIT', 'INGEST_BODY_LIMIT', 'DATA_DIR']));
    expect(named.filter((name) => !(name in environmentSchema.shape))).toEqual([]);
  });

  it('write every example against $GATEWAY, with curl -sS (connection errors shown)', () => {
    const offenders = PAGES.flatMap((page) =>
      shellExamples(text(page))
        .flatMap(({ script }) => script.split('\n'))
        .filter((line) => /\bcurl\b/.test(line) && (!/\$\{?G(ATEWAY)?\b/.test(line) || !/curl -sS\b/.test(line)))
        .map((line) => `${page}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});

describe('the runnable examples of docs/*.md', () => {
  const examples = PAGES.filter((page) => page !== 'README.md').flatMap((page) =>
    [...text(page).matchAll(/<!-- runnable -->\n(```sh\n[\s\S]*?```(?:\n```json\n[\s\S]*?```)?)/g)].flatMap((match) => shellExamples(match[1]!).map((example) => ({ page, ...example }))),
  );
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('are there', () => {
    expect(examples.length).toBeGreaterThanOrEqual(2);
  });

  it.each(examples.map((example) => [`${example.page}: ${example.title}`, example] as const))('%s runs and answers without an error', async (_name, { script, shown }) => {
    const answers = await runExample(script, gw.url);
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect({ errors: answer.errors, error: answer.error, responseCode: answer.responseCode ?? 'OK' }).toEqual({ errors: undefined, error: undefined, responseCode: 'OK' });
    }
    if (shown.length > 0) answers.forEach((answer, index) => expect(answer).toEqual(abridged(shown[index])));
  });
});
