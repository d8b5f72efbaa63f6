// `npm run bench:cold`: reads from a fresh gateway's first second (issue 53). bench/gateway.ts
// cannot show this: it checks every distinct request once and warms up before it measures.
//
// One gateway seeds BENCH_COLD_DATASETS Live datasets through REST and stops; a fresh gateway process
// (run as `npm start` runs it) starts on the same database, and from the moment /readyz answers,
// REST dataset reads over those ids run in back-to-back rounds of BENCH_DURATION seconds. Each round
// prints req/s and p99, the share the fast path answered and the gateway's CPU per request (from its
// own /metrics), and whether any change was announced meanwhile (which would drop kept answers).
// Then the same rounds run on two fresh floors (bench/floors.ts): an in-memory node:http server that
// keeps each answer after its first read, and express + pg doing the SQL per read; each gateway
// round is shown against the floors' round of the same number, with the load average.
//
// Settings (environment): BENCH_DURATION seconds per round (default 5), BENCH_ROUNDS (default 4),
// BENCH_CONNECTIONS (default 50), BENCH_COLD_DATASETS (default 160), BENCH_NODE_FLAGS for the fresh
// gateway (e.g. --cpu-prof).
import type autocannon from 'autocannon';
import pg from 'pg';
import { startExpressFloor, startMemoryFloor } from './floors.js';
import { Cleanups, formatNumber, loadAverage, log, logMachine, positiveIntegerSetting, postEnvelope, printTable, runAutocannon, runBench, startBenchGateway, startFreshGateway } from './support.js';

const SEED_CONCURRENCY = 8;

function definition(datasetId: string) {
  return {
    dataset_id: datasetId,
    name: `Cold ${datasetId}`,
    type: 'event',
    api_version: 'v2',
    tags: ['bench'],
    data_schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { id: { type: 'string' }, ts: { type: 'string', format: 'date-time' } },
      required: ['id', 'ts'],
      additionalProperties: false,
    },
    dataset_config: {
      keys_config: { data_key: '', partition_key: '', timestamp_key: 'ts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false },
      cache_config: { cache_db_host: 'localhost', cache_db_port: 6379, cache_db: 0 },
      file_upload_path: [],
    },
    validation_config: { validate: true, mode: 'Strict' },
    sample_data: { id: 'e1', ts: '2026-01-01T00:00:00Z' },
  };
}

async function seed(gatewayUrl: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `cold-${String(index).padStart(4, '0')}`);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      await postEnvelope(gatewayUrl, '/v2/datasets/import', 'api.datasets.import', definition(id), id);
      for (const status of ['ReadyToPublish', 'Live']) {
        await postEnvelope(gatewayUrl, '/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: id, status }, `${id} to ${status}`);
      }
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return ids;
}

/** The figures of the gateway's own /metrics a round reads: reads answered, those by the fast path, CPU seconds. */
async function gatewayFigures(url: string): Promise<{ reads: number; fastPath: number; cpuSeconds: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sum = (pattern: RegExp) =>
    text
      .split('\n')
      .filter((line) => pattern.test(line))
      .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return {
    reads: sum(/^gateway_http_requests_total\{.*operation="api\.datasets\.read"/),
    fastPath: sum(/^gateway_fast_path_answers_total\{transport="rest"\}/),
    cpuSeconds: sum(/^process_cpu_seconds_total /),
  };
}

interface Round {
  result: autocannon.Result;
  load: string;
}

/** `rounds` back-to-back autocannon rounds of `paths` on `url`; `after` runs after each (the gateway's figures). */
async function runRounds(url: string, paths: string[], rounds: number, duration: number, connections: number, after?: (round: number) => Promise<void>): Promise<Round[]> {
  const done: Round[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    const load = loadAverage();
    const result = await runAutocannon({ url, connections, duration, requests: paths.map((path) => ({ method: 'GET', path })) });
    done.push({ result, load });
    await after?.(round);
  }
  return done;
}

async function main(): Promise<boolean> {
  const duration = positiveIntegerSetting('BENCH_DURATION', 5);
  const rounds = positiveIntegerSetting('BENCH_ROUNDS', 4);
  const connections = positiveIntegerSetting('BENCH_CONNECTIONS', 50);
  const datasets = positiveIntegerSetting('BENCH_COLD_DATASETS', 160);
  logMachine();
  const cleanups = new Cleanups();
  try {
    const seeding = await startBenchGateway(cleanups, 10);
    log(`seeding ${datasets} Live datasets through REST…`);
    const ids = await seed(seeding.url, datasets);
    process.kill(seeding.pid!, 'SIGTERM');
    while (isRunning(seeding.pid!)) await new Promise((resolve) => setTimeout(resolve, 50));

    // Changes announced while the rounds run would drop kept answers: counted, to tell that case apart.
    const listener = new pg.Client({ connectionString: seeding.cluster.url });
    await listener.connect();
    cleanups.push('change listener', () => listener.end());
    let announced = 0;
    listener.on('notification', (message) => {
      if (!(message.payload ?? '').startsWith('sync:')) announced += 1;
    });
    await listener.query('LISTEN gateway_changes');

    log('starting a fresh gateway on the seeded database, as `npm start` runs it…');
    const fresh = await startFreshGateway(seeding.cluster.url, 10);
    cleanups.push('fresh gateway', () => fresh.stop());
    log(`ready ${Math.round(fresh.readyAfterMs)} ms after it was started; rounds of ${duration} s, ${connections} connections, ${ids.length} ids`);

    const gatewayRows: string[][] = [];
    let before = await gatewayFigures(fresh.url);
    const gateway = await runRounds(
      fresh.url,
      ids.map((id) => `/v2/datasets/read/${id}`),
      rounds,
      duration,
      connections,
      async () => {
        const after = await gatewayFigures(fresh.url);
        const reads = after.reads - before.reads;
        gatewayRows.push([
          reads > 0 ? `${Math.round(((after.fastPath - before.fastPath) / reads) * 100)} %` : '-',
          reads > 0 ? formatNumber(((after.cpuSeconds - before.cpuSeconds) * 1000) / reads, 2) : '-',
          String(announced),
        ]);
        before = after;
      },
    );
    await fresh.stop();

    // The floors, fresh too, right after (the same rounds, the same ids): the in-memory server's
    // first round includes its first reads, as the gateway's does.
    log('the same rounds on a fresh in-memory node:http floor, then on a fresh express + pg floor…');
    const floorPaths = ids.map((id) => `/dataset/read/${id}`);
    const memoryFloor = await startMemoryFloor(seeding.cluster.url);
    const memory = await runRounds(memoryFloor.url, floorPaths, rounds, duration, connections).finally(() => memoryFloor.stop());
    const expressFloor = await startExpressFloor(seeding.cluster.url);
    const express = await runRounds(expressFloor.url, floorPaths, rounds, duration, connections).finally(() => expressFloor.stop());

    const rate = (round: Round) => round.result.requests.average;
    printTable(
      ['round', 'req/s', 'p99 ms', 'non-2xx', 'fast path', 'CPU ms/read', 'changes announced', 'in-memory req/s', 'express req/s', 'vs in-memory', 'vs express', 'load (gateway round)'],
      gateway.map((round, index) => [
        String(index + 1),
        formatNumber(rate(round), 0),
        String(round.result.latency.p99),
        String(round.result.non2xx),
        ...gatewayRows[index]!,
        formatNumber(rate(memory[index]!), 0),
        formatNumber(rate(express[index]!), 0),
        `${formatNumber(rate(round) / rate(memory[index]!), 2)}×`,
        `${formatNumber(rate(round) / rate(express[index]!), 2)}×`,
        round.load,
      ]),
    );
    log(
      "req/s and p99: autocannon; fast path, CPU ms per read: the gateway's own /metrics over the round; changes announced: on gateway_changes since the fresh gateway started; " +
        'in-memory: a node:http server keeping each answer serialised after its first read (bench/floors.ts); express: express 5 + pg doing the SQL per read; both fresh, run right after the gateway; ' +
        'load: the 1/5/15-minute load average when the gateway round began.',
    );
    return [...gateway, ...memory, ...express].every((round) => round.result.non2xx === 0);
  } finally {
    await cleanups.runAll();
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

runBench(main);
