// The CLI (`npm run cli -- <command>`, `npx gateway <command>`), spawned as a user runs it against a
// real gateway over HTTP: its output, its exit status, and what it changed on the gateway.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { findFreePort } from '../../src/platform/database/embedded.js';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

let gw: TestGateway;
let admin: string;
let asAdmin: TestGateway;
let dir: string;

beforeAll(async () => {
  gw = await startTestGateway(JWT_ENV);
  admin = await token({ roles: ['admin'], expiresIn: 3600 });
  asAdmin = { ...gw, http: supertest.agent(gw.url).set('authorization', `Bearer ${admin}`) };
  dir = await mkdtemp(path.join(os.tmpdir(), 'cli-test-'));
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npx gateway <args>` (bin/gateway.mjs) with the environment a user sets. */
function cli(args: string[], env: Record<string, string> = { GATEWAY: gw.url, GATEWAY_TOKEN: admin }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bin', 'gateway.mjs'), ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('dataset definitions', () => {
  it('exports a definition to a file and imports it back as another dataset', async () => {
    const id = `cli-${randomUUID().slice(0, 8)}`;
    await seedDataset(asAdmin, id, 'Live');
    const file = path.join(dir, `${id}.json`);
    const exported = await cli(['export-definition', id, file]);
    expect(exported).toMatchObject({ code: 0, stderr: `exported the definition of ${id} to ${file}\n` });
    const written = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(written).toEqual((await asAdmin.http.get(`/v2/datasets/export/${id}`)).body.result);

    const copyId = `${id}-copy`;
    const copyFile = path.join(dir, `${copyId}.json`);
    await writeFile(copyFile, JSON.stringify({ ...written, id: copyId, dataset_id: copyId, name: `copy of ${id}` }));
    const imported = await cli(['import-definition', copyFile]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(new RegExp(`^.+ \\(dataset ${copyId}, version_key \\S+\\)\\n$`));
    const read = await asAdmin.http.get(`/v2/datasets/read/${copyId}?mode=edit`);
    expect(read.status).toBe(200);
    expect(read.body.result.name).toBe(`copy of ${id}`);
  }, 60_000);

  it('writes the definition to stdout without a file', async () => {
    const id = `cli-${randomUUID().slice(0, 8)}`;
    await seedDataset(asAdmin, id, 'Live');
    const run = await cli(['export-definition', id]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ dataset_id: id });
  }, 60_000);

  it("says what the gateway refused: an unknown dataset's code and message, exit 1", async () => {
    const run = await cli(['export-definition', 'no-such-dataset']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^gateway: GET \/v2\/datasets\/export\/no-such-dataset: HTTP 404 DATASET_NOT_FOUND: .*no-such-dataset/);
  });
});

describe('ingest', () => {
  it('sends a JSON-lines file in batches with a progress bar (batches, events/s, failures) and reports what the gateway did', async () => {
    const id = `cli-in-${randomUUID().slice(0, 8)}`;
    await seedDataset(asAdmin, id, 'Live');
    const events = Array.from({ length: 25 }, (_, n) => ({ id: `${id}-${n}`, ts: '2026-01-01T00:00:00.000Z', amount: n }));
    // One event the dataset's schema refuses (amount is a number).
    events[7] = { id: `${id}-7`, ts: '2026-01-01T00:00:00.000Z', amount: 'seven' as unknown as number };
    const file = path.join(dir, `${id}.jsonl`);
    await writeFile(file, `${events.map((event) => JSON.stringify(event)).join('\n')}\n`);

    const run = await cli(['ingest', id, file, '--batch', '10']);
    expect(run.code).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^\[#{24}\] 100% 25 events · 3 batches · [\d,]+ events\/s · 1 failed$/);
    expect(run.stdout).toMatch(/^ingested 25 events into \S+ in 3 batches \([\d.]+ s, [\d,]+ events\/s\): 24 processed, 1 failed, 0 duplicates\n$/);
    const stored = await gw.sql<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE dataset_id = $1`, [id]);
    expect(stored.rows[0]!.n).toBe(24);
  }, 60_000);

  it('stops at a line that is not JSON, naming it', async () => {
    const file = path.join(dir, 'bad.jsonl');
    await writeFile(file, '{"id":"x"}\nnot json\n');
    const run = await cli(['ingest', 'any-dataset', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/gateway: .*bad\.jsonl, line 2: not JSON/);
  });
});

describe('job', () => {
  it('follows a job with --wait to SUCCEEDED and prints its result link', async () => {
    const id = `cli-job-${randomUUID().slice(0, 8)}`;
    await seedDataset(asAdmin, id, 'Live');
    const started = await asAdmin.http.get(`/v2/datasets/export/${id}`).set('prefer', 'respond-async');
    expect(started.status).toBe(202);
    const jobId = started.body.result.id as string;
    const run = await cli(['job', jobId, '--wait']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^job ${jobId} \\(DATASET_EXPORT\\): SUCCEEDED \\[#{24}\\] 100% 1/1 steps\\nresult: http://\\S+ \\(until \\S+\\)\\n$`));
    const link = /result: (\S+)/.exec(run.stdout)![1]!;
    expect(((await (await fetch(link)).json()) as { dataset_id: string }).dataset_id).toBe(id);
  }, 60_000);

  it("answers an unknown job with the gateway's JOB_NOT_FOUND, exit 1", async () => {
    const unknown = randomUUID();
    const run = await cli(['job', unknown]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`gateway: GET /v2/jobs/${unknown}: HTTP 404 JOB_NOT_FOUND: no job has id ${unknown} (finished jobs are kept JOB_RESULT_RETENTION_HOURS)\n`);
  });
});

describe('talking to the gateway', () => {
  it('names the address and GATEWAY when the gateway cannot be reached', async () => {
    // A port nothing listens on (free a moment ago).
    const port = await findFreePort();
    const run = await cli(['job', randomUUID()], { GATEWAY: `http://127.0.0.1:${port}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `gateway: cannot reach the gateway at http://127.0.0.1:${port} (ECONNREFUSED): start it (npm start), or set GATEWAY to its address, e.g. GATEWAY=http://gateway.internal:3000\n`,
    );
  });

  it('says which variable to set when the gateway asks for credentials', async () => {
    const run = await cli(['job', randomUUID()], { GATEWAY: gw.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/HTTP 401 UNAUTHENTICATED: .*\(set GATEWAY_TOKEN to a bearer token, or GATEWAY_API_KEY to an API key\)/);
  });

  it('answers bad usage with the usage and exit 2', async () => {
    const run = await cli(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^gateway: unknown command "frobnicate"\n\nusage: gateway <command>/);
    const missing = await cli(['ingest', 'only-one-argument']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^gateway: ingest: expected 2 arguments, got 1/);
  });
});
