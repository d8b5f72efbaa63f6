// A dashboard page of series: 50 Live datasets, each with its ingestion series over the last hour at
// a 60 s step (`Dataset.ingestionSeries`), in one GraphQL query. Prints the page's SQL statements and
// time, against the same page without the series. The metrics store holds an hour of samplings
// every 15 s of every dataset's counters (200 series), written as the sampler writes them.
// Each run asks a range of its own (one step earlier than the run before), so no kept range answer
// nor kept page serves it: what a dashboard pays when a new sampling moved its window on.
//
// Usage: node --import tsx bench/series-page.ts   (BENCH_SERIES_RUNS=<n> timed runs of each, 30 by default)
import { performance } from 'node:perf_hooks';
import { startLocalGateway } from './local-gateway.js';
import { formatNumber, jsonHeaders, loadAverage, log, logMachine, positiveIntegerSetting, runBench } from './support.js';

const DATASETS = 50;
const STEP_SECONDS = 60;
const SAMPLE_MS = 15_000;
const HOUR_MS = 3_600_000;

const definition = (n: number) => ({
  dataset_id: `series-${n}`,
  name: `Series ${n}`,
  type: 'event',
  data_schema: { type: 'object', properties: { id: { type: 'string' }, ts: { type: 'string', format: 'date-time' } } },
  dataset_config: { keys_config: { timestamp_key: 'ts' }, indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false } },
});

const PLAIN = (run: number) => `{ datasets(first: ${DATASETS}, filter: { status: [LIVE] }) { nodes { datasetId name status } } }\n# run ${run}`;
const PAGE = (run: number) => `query($start: DateTime!, $end: DateTime!) {
  datasets(first: ${DATASETS}, filter: { status: [LIVE] }) {
    nodes { datasetId name status ingestionSeries(start: $start, end: $end, step: ${STEP_SECONDS}) { t eventsIn processed failed } }
  }
}
# run ${run}`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<boolean> {
  const runs = positiveIntegerSetting('BENCH_SERIES_RUNS', 30);
  logMachine();
  const local = await startLocalGateway({ METRICS_SAMPLE_INTERVAL_SECONDS: '0', RATE_LIMIT_RPS: '1000000' });
  try {
    const post = async (query: string, variables?: Record<string, unknown>) => {
      const response = await fetch(`${local.url}/graphql`, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ query, variables }) });
      const body = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
      if (body.errors) throw new Error(`${query.slice(0, 60)}: ${JSON.stringify(body.errors).slice(0, 400)}`);
      return body.data!;
    };
    for (let n = 1; n <= DATASETS; n += 1) {
      await post('mutation($d: JSON!) { importDataset(definition: $d) { id } }', { d: definition(n) });
      for (const to of ['READY_TO_PUBLISH', 'LIVE']) await post(`mutation { transitionDataset(id: "series-${n}", to: ${to}) { id } }`);
    }
    // An hour and a half of samplings, every dataset's counters growing by its number each sampling.
    const sampler = local.gateway.metricsSampler!;
    const pool = local.gateway.database.pool;
    const lastSample = Math.floor(Date.now() / SAMPLE_MS) * SAMPLE_MS;
    await pool.query(
      `INSERT INTO ingestion_counters (dataset_id, requests, received, processed)
       SELECT 'series-' || e, 0, 0, 0 FROM generate_series(1, ${DATASETS}) e
       ON CONFLICT (dataset_id) DO UPDATE SET received = 0, processed = 0`,
    );
    for (let at = lastSample - 1.5 * HOUR_MS; at <= lastSample; at += SAMPLE_MS) {
      await pool.query(
        `UPDATE ingestion_counters SET requests = requests + 1, received = received + substring(dataset_id from 8)::int, processed = processed + substring(dataset_id from 8)::int WHERE dataset_id LIKE 'series-%'`,
      );
      await sampler.sample(at);
    }
    const end = Math.floor(lastSample / (STEP_SECONDS * 1000)) * STEP_SECONDS * 1000;
    const range = (run: number) => ({ start: new Date(end - HOUR_MS - run * STEP_SECONDS * 1000).toISOString(), end: new Date(end - run * STEP_SECONDS * 1000).toISOString() });

    const check = (await post(PAGE(-1), range(0))) as { datasets: { nodes: { datasetId: string; ingestionSeries: { eventsIn: number }[] }[] } };
    const nodes = check.datasets.nodes;
    if (nodes.length !== DATASETS) throw new Error(`expected ${DATASETS} datasets, got ${nodes.length}`);
    for (const node of nodes) {
      const n = Number(node.datasetId.slice(7));
      // 4 samplings a step, each adding n: 4n events per step once the series had begun.
      if (node.ingestionSeries.length !== 61 || node.ingestionSeries.at(-1)!.eventsIn !== 4 * n)
        throw new Error(`${node.datasetId}: unexpected series ${JSON.stringify(node.ingestionSeries.slice(-2))}`);
    }

    const times = { plain: [] as number[], page: [] as number[] };
    /** CPU of this process (the gateway runs in it; PostgreSQL does not) per query, ms: less moved by the machine's other load than the time. */
    const cpu = { plain: [] as number[], page: [] as number[] };
    const statements = { plain: [] as number[], page: [] as number[] };
    for (let run = 1; run <= runs; run += 1) {
      for (const [name, query, variables] of [
        ['plain', PLAIN(run), undefined],
        ['page', PAGE(run), range(run)],
      ] as const) {
        const before = local.gateway.database.statementCount();
        const started = performance.now();
        const cpuBefore = process.cpuUsage();
        await post(query, variables);
        times[name].push(performance.now() - started);
        const used = process.cpuUsage(cpuBefore);
        cpu[name].push((used.user + used.system) / 1000);
        statements[name].push(local.gateway.database.statementCount() - before);
      }
    }
    log('');
    log(`Series page: ${DATASETS} Live datasets, each with ingestionSeries over an hour at a ${STEP_SECONDS} s step (61 points of 4 series), ${runs} runs each, a new range each run`);
    log(`  query                          SQL statements (median)   p50 ms   max ms   gateway CPU ms (p50)`);
    for (const name of ['plain', 'page'] as const) {
      log(
        `  ${(name === 'plain' ? 'the list alone' : 'the list with its series').padEnd(30)} ${String(median(statements[name])).padStart(24)}   ${formatNumber(median(times[name]), 1).padStart(6)}   ${formatNumber(Math.max(...times[name]), 1).padStart(6)}   ${formatNumber(median(cpu[name]), 1).padStart(6)}`,
      );
    }
    log(
      `  the series' share of the page (p50): ${formatNumber(median(times.page) - median(times.plain), 1)} ms, ${formatNumber(median(cpu.page) - median(cpu.plain), 1)} ms of gateway CPU; load average ${loadAverage()} at the end`,
    );
    return true;
  } finally {
    await local.stop();
  }
}

runBench(main);
