// `npm run bench:memory`: the gateway's memory under load, measured on the process users run.
//
// Builds dist/ and starts the gateway as `npm start` runs it (the node command of package.json's
// start script, with its heap flags) as a child process on its embedded defaults (a
// fresh DATA_DIR in a temporary folder, NODE_ENV=production, silent logs), seeds 200 datasets (160
// Live) and 200 templates through the REST API, then drives reads and lists of both transports and
// 1,000-event ingest batches with autocannon, BENCH_DURATION seconds each (default 5), while it
// samples the child's resident set (VmRSS of /proc/<pid>/status) every 100 ms. Prints the RSS after
// start, after seeding, the peak under load and at the end, per scenario; target (issue 17): peak
// at most 250 MiB. Linux only (it reads /proc).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { temporaryFolder } from './local-gateway.js';
import { envelope, jsonHeaders, positiveIntegerSetting, postEnvelope, runBench, startCommandArgs } from './support.js';

const TARGET_MIB = 250;
const MIB = 2 ** 20;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
}

const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;

/** The V8 heap (used / total) and memory outside it, as the gateway's /metrics reports them: where the RSS goes. */
async function heapOf(url: string): Promise<string> {
  const text = await fetch(`${url}/metrics`).then((response) => response.text());
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return `heap ${mib(gauge('nodejs_heap_size_used_bytes'))} used of ${mib(gauge('nodejs_heap_size_total_bytes'))}, external ${mib(gauge('nodejs_external_memory_bytes'))}`;
}

async function main(): Promise<boolean> {
  const duration = positiveIntegerSetting('BENCH_DURATION', 5);
  const folder = await temporaryFolder('gateway-memory-');
  const port = 30_000 + Math.floor(Math.random() * 20_000);
  // BENCH_NODE_FLAGS: extra node flags for the gateway (e.g. heap settings to compare).
  const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const startArgs = startCommandArgs();
  console.log(`gateway: node ${[...flags, ...startArgs].join(' ')}`);
  const child = spawn(process.execPath, [...flags, ...startArgs], {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: folder.path, PORT: String(port), HOST: '127.0.0.1', EMBEDDED_PG_PORT: '0', AUTH_MODE: 'none' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let tries = 0; ; tries++) {
      const ready = await fetch(`${url}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (tries > 600 || child.exitCode !== null) throw new Error('the gateway did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const started = rssOf(child.pid!);
    const startedHeap = await heapOf(url);

    for (let n = 0; n < 200; n++) {
      const id = `mem-${n}`;
      await postEnvelope(
        url,
        '/v2/datasets/import',
        'api.datasets.import',
        {
          dataset_id: id,
          name: `Memory ${n}`,
          type: 'event',
          api_version: 'v2',
          data_schema: { type: 'object', properties: { id: { type: 'string' }, ts: { type: 'string' }, city: { type: 'string' }, amount: { type: 'number' } } },
          dataset_config: { keys_config: { timestamp_key: 'ts' }, indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false } },
        },
        id,
      );
      if (n < 160) for (const status of ['ReadyToPublish', 'Live']) await postEnvelope(url, '/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: id, status }, id);
      await postEnvelope(
        url,
        '/v2/template/create',
        'api.query.template.create',
        { template_name: `Memory template ${n}`, query_type: 'sql', query: 'SELECT * FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}' },
        `template ${n}`,
      );
    }
    const seeded = rssOf(child.pid!);
    const seededHeap = await heapOf(url);

    const batch = JSON.stringify(envelope('api.data.in', 'memory', { data: Array.from({ length: 1000 }, (_, i) => ({ id: `e${i}`, ts: '2026-03-02T10:00:00Z', city: 'Pune', amount: i })) }));
    const graphql = (query: string) => JSON.stringify({ query });
    const scenarios: [string, autocannon.Request[]][] = [
      ['REST dataset read', Array.from({ length: 160 }, (_, n) => ({ method: 'GET', path: `/v2/datasets/read/mem-${n}` }))],
      ['REST dataset list', [{ method: 'POST', path: '/v2/datasets/list', headers: jsonHeaders, body: JSON.stringify(envelope('api.datasets.list', 'memory', { request: {} })) }]],
      ['REST template list', [{ method: 'POST', path: '/v2/template/list', headers: jsonHeaders, body: JSON.stringify(envelope('api.query.template.list', 'memory', { request: {} })) }]],
      [
        'GraphQL dataset read',
        Array.from({ length: 160 }, (_, n) => ({ method: 'POST', path: '/graphql', headers: jsonHeaders, body: graphql(`{ dataset(id: "mem-${n}") { id name status definition } }`) })),
      ],
      ['GraphQL dataset list', [{ method: 'POST', path: '/graphql', headers: jsonHeaders, body: graphql('{ datasets(first: 200) { nodes { id name status datasetConfig } } }') }]],
      ['REST ingest, 1,000-event batches', Array.from({ length: 160 }, (_, n) => ({ method: 'POST', path: `/v2/data/in/mem-${n}`, headers: jsonHeaders, body: batch }))],
    ];
    let peak = seeded;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(child.pid!))), 100);
    const rows: string[] = [];
    try {
      for (const [name, requests] of scenarios) {
        const before = peak;
        peak = rssOf(child.pid!);
        const result = await autocannon({ url, connections: 10, duration, requests });
        rows.push(`${name.padEnd(34)} ${String(Math.round(result.requests.average)).padStart(6)} req/s  peak ${mib(peak).padStart(8)}  non-2xx ${result.non2xx}  after: ${await heapOf(url)}`);
        peak = Math.max(before, peak);
      }
    } finally {
      clearInterval(sampler);
    }
    const end = rssOf(child.pid!);
    console.log(`gateway RSS: ${mib(started)} after start (${startedHeap}), ${mib(seeded)} after seeding 200 datasets and 200 templates (${seededHeap})`);
    for (const row of rows) console.log(`  ${row}`);
    console.log(`peak under load ${mib(peak)}, ${mib(end)} at the end; target (issue 17): at most ${TARGET_MIB} MiB: ${peak <= TARGET_MIB * MIB ? 'met' : 'MISSED'}`);
    return true;
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit').catch(() => undefined);
    await folder.remove();
  }
}

runBench(main);
