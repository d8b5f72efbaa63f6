// Fuzzing every REST entry (from its own request schemas) and every GraphQL root field (from its
// argument types), with hostile values mixed in: wrong types, huge values, unicode, prototype keys,
// deep nesting, bodies that are not JSON. Zero 500s, no hang, no crash, every refusal in the
// contract's envelope. FUZZ_RUNS requests (default 300; `bench/fuzz.ts` runs 10,000 and more),
// FUZZ_SEED to replay a run. The figures are printed.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { restEndpoints } from '../../rest/endpoints.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { formatReport, runFuzz, seedFuzzData } from '../support/fuzz.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
// A fixed seed by default keeps CI repeatable; bench/fuzz.ts draws a new one each run.
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);

let gw: TestGateway;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-fuzz-'));
  // Its own DATA_DIR (uploads, e-mails), quick upstream time-outs (webhooks cannot be reached here).
  gw = await startTestGateway({ DATA_DIR: dataDir, NOTIFY_TIMEOUT_MS: '500', ALERT_MANAGER_TIMEOUT_MS: '500' });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

it(`answers ${RUNS} fuzzed REST and GraphQL requests without a 500, a hang or a crash, each refusal in the contract envelope`, async () => {
  const report = await runFuzz({ url: gw.url, endpoints: restEndpoints, schema: buildSchema('fuzz'), runs: RUNS, seed: SEED, concurrency: 4, timeoutMs: 20_000, before: () => seedFuzzData(gw.url) });
  // The figures, on request (TEST_VERBOSE=1); a failure below prints what went wrong anyway.
  if (process.env.TEST_VERBOSE) console.log(formatReport(report));
  expect(report.failures).toEqual([]);
  expect(report.prototypePolluted).toBe(false);
  // Still alive and answering.
  expect((await gw.http.get('/healthz')).status).toBe(200);
  expect((await gw.http.get('/readyz')).status).toBe(200);
}, 300_000);
