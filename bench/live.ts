// `npm run bench:live`: subscriptions at scale on one gateway.
//
// Builds dist/ and starts the gateway as `npm start` runs it, as a child process on its embedded
// defaults (a fresh DATA_DIR, NODE_ENV=production, silent logs, metrics sampled every second); this
// process is the load generator. It seeds BENCH_DATASETS Live datasets (default 50) and opens
// BENCH_SUBSCRIBERS graphql-ws subscriptions (default 10,000) over BENCH_CONNECTIONS WebSockets
// (default 1,000): half on ingestionCounts(every: 1) of the datasets, spread evenly, half on
// datasetChanged. For BENCH_DURATION seconds (default 20) it ingests a batch into every dataset each
// second and creates a dataset every 200 ms. Prints, per field, deliveries against what was due
// ("every subscriber gets every change"), change-to-delivery p50/p99 (datasetChanged: from the
// mutation sent to the event received; ingestionCounts: from the end of the counted interval to its
// delivery), messages/s, and the gateway's CPU (of one core) and peak RSS. Goal (issue 37): every
// change delivered, p99 under 1 s, RSS under 1 GiB. Linux only (it reads /proc).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { temporaryFolder } from './local-gateway.js';
import { logMachine, positiveIntegerSetting, postEnvelope, runBench, startCommandArgs } from './support.js';

const MIB = 2 ** 20;
const INDEXING = { keys_config: { timestamp_key: 'ts' }, indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false } };
const SCHEMA = { type: 'object', properties: { id: { type: 'string' }, ts: { type: 'string' } } };
const CLOCK_TICKS = 100;

function procStatus(pid: number): { rss: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { rss, cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<boolean> {
  const subscribers = positiveIntegerSetting('BENCH_SUBSCRIBERS', 10_000);
  const connections = Math.min(positiveIntegerSetting('BENCH_CONNECTIONS', 1_000), subscribers);
  const datasets = positiveIntegerSetting('BENCH_DATASETS', 50);
  const duration = positiveIntegerSetting('BENCH_DURATION', 20);
  logMachine();
  const folder = await temporaryFolder('gateway-live-');
  const port = 30_000 + Math.floor(Math.random() * 20_000);
  const perConnection = Math.ceil(subscribers / connections);
  const child = spawn(process.execPath, startCommandArgs(), {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      DATA_DIR: folder.path,
      PORT: String(port),
      HOST: '127.0.0.1',
      EMBEDDED_PG_PORT: '0',
      AUTH_MODE: 'none',
      METRICS_SAMPLE_INTERVAL_SECONDS: '1',
      RATE_LIMIT_RPS: '1000000',
      RATE_LIMIT_INGEST_RPS: '1000000',
      LIVE_MAX_SUBSCRIPTIONS_PER_CALLER: String(subscribers * 2),
      LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: String(perConnection),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const clients: Client[] = [];
  try {
    for (let tries = 0; ; tries++) {
      if (
        await fetch(`${url}/readyz`).then(
          (response) => response.ok,
          () => false,
        )
      )
        break;
      if (tries > 600 || child.exitCode !== null) throw new Error('the gateway did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ids = Array.from({ length: datasets }, (_, n) => `live_bench_${n}`);
    for (const id of ids) {
      await postEnvelope(url, '/v2/datasets/import', 'api.datasets.import', { dataset_id: id, name: id, type: 'event', api_version: 'v2', data_schema: SCHEMA, dataset_config: INDEXING }, id);
      for (const status of ['ReadyToPublish', 'Live']) await postEnvelope(url, '/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: id, status }, id);
    }
    console.log(`gateway ready, ${datasets} Live datasets; opening ${subscribers} subscriptions over ${connections} WebSockets…`);

    const sentAt = new Map<string, number>();
    const changeLatencies: number[] = [];
    const countLatencies: number[] = [];
    let changeDeliveries = 0;
    let countDeliveries = 0;
    let changeSubscribers = 0;
    let countSubscribers = 0;
    let errors = 0;
    let acknowledged = 0;
    let failedConnections = 0;
    let measuring = false;
    const wsUrl = `${url.replace(/^http/, 'ws')}/graphql`;
    for (let c = 0; c < connections; c += 1) {
      const client = createClient({
        url: wsUrl,
        webSocketImpl: WebSocket,
        lazy: false,
        retryAttempts: 0,
        onNonLazyError: () => (failedConnections += 1),
        on: { connected: () => (acknowledged += 1) },
      });
      clients.push(client);
      for (let s = 0; s < perConnection; s += 1) {
        const n = c * perConnection + s;
        if (n >= subscribers) break;
        if (n % 2 === 0) {
          changeSubscribers += 1;
          client.subscribe<{ datasetChanged: { datasetId: string } }>(
            { query: 'subscription { datasetChanged { datasetId kind } }' },
            {
              next: (result) => {
                const sent = sentAt.get(result.data?.datasetChanged.datasetId ?? '');
                if (!measuring || sent === undefined) return;
                changeDeliveries += 1;
                changeLatencies.push(Date.now() - sent);
              },
              error: () => (errors += 1),
              complete: () => undefined,
            },
          );
        } else {
          countSubscribers += 1;
          client.subscribe<{ ingestionCounts: { t: string; eventsIn: number } }>(
            { query: 'subscription($id: String!) { ingestionCounts(datasetId: $id, every: 1) { t eventsIn } }', variables: { id: ids[Math.floor(n / 2) % datasets] } },
            {
              next: (result) => {
                if (!measuring || !result.data) return;
                countDeliveries += 1;
                countLatencies.push(Date.now() - Date.parse(result.data.ingestionCounts.t));
              },
              error: () => (errors += 1),
              complete: () => undefined,
            },
          );
        }
      }
      // Open them a hundred at a time, each batch acknowledged before the next (a burst of thousands
      // would measure the generator's own event loop).
      if ((c + 1) % 100 === 0) while (acknowledged + failedConnections < c + 1) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    while (acknowledged + failedConnections < connections) await new Promise((resolve) => setTimeout(resolve, 50));
    if (failedConnections > 0) console.log(`${failedConnections} connections failed to open`);
    // Let every subscribe reach the gateway and one interval pass before measuring.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    const before = procStatus(child.pid!);
    const generatorBefore = process.cpuUsage();
    let peakRss = before.rss;
    const started = Date.now();
    measuring = true;
    let created = 0;
    let ingests = 0;
    const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, procStatus(child.pid!).rss)), 100);
    const ingestTimer = setInterval(() => {
      for (const id of ids) {
        ingests += 1;
        void fetch(`${url}/v2/data/in/${id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            id: 'api.data.in',
            ver: 'v2',
            ts: new Date().toISOString(),
            params: { msgid: `m${ingests}` },
            data: Array.from({ length: 10 }, (_, i) => ({ id: `e${i}`, ts: new Date().toISOString() })),
          }),
        }).catch(() => undefined);
      }
    }, 1_000);
    const changeTimer = setInterval(() => {
      const id = `live_change_${created++}`;
      sentAt.set(id, Date.now());
      void fetch(`${url}/v2/datasets/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'api.datasets.import',
          ver: 'v2',
          ts: new Date().toISOString(),
          params: { msgid: id },
          request: { dataset_id: id, name: id, type: 'event', data_schema: SCHEMA, dataset_config: INDEXING },
        }),
      }).catch(() => undefined);
    }, 200);
    await new Promise((resolve) => setTimeout(resolve, duration * 1000));
    clearInterval(ingestTimer);
    clearInterval(changeTimer);
    // The last changes' deliveries: wait until none arrive for 2 s (at most 30 s), so a backlog shows in the latencies, not as losses.
    const sendingEnded = Date.now();
    for (let last = -1; changeDeliveries !== last && Date.now() - sendingEnded < 30_000;) {
      last = changeDeliveries;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    measuring = false;
    clearInterval(rssTimer);
    const after = procStatus(child.pid!);
    const generator = process.cpuUsage(generatorBefore);
    const seconds = (Date.now() - started) / 1000;
    const sendingSeconds = (sendingEnded - started) / 1000;

    changeLatencies.sort((a, b) => a - b);
    countLatencies.sort((a, b) => a - b);
    const dueChanges = created * changeSubscribers;
    const intervals = Math.floor(seconds);
    console.log(`\nchanges sent for ${sendingSeconds.toFixed(1)} s; deliveries drained until ${seconds.toFixed(1)} s`);
    console.log(
      `\n${subscribers} subscriptions (${changeSubscribers} datasetChanged, ${countSubscribers} ingestionCounts of ${datasets} datasets) over ${connections} WebSockets, ${seconds.toFixed(1)} s`,
    );
    console.log(
      `datasetChanged: ${created} datasets created (one each 200 ms); delivered ${changeDeliveries} of ${dueChanges} due (${((100 * changeDeliveries) / Math.max(1, dueChanges)).toFixed(2)} %); mutation sent → event received p50 ${percentile(changeLatencies, 50)} ms, p99 ${percentile(changeLatencies, 99)} ms`,
    );
    console.log(
      `ingestionCounts: ${ingests} ingest calls of 10 events; delivered ${countDeliveries} points (about ${countSubscribers} × ${intervals} intervals = ${countSubscribers * intervals} due); interval end → point received p50 ${percentile(countLatencies, 50)} ms, p99 ${percentile(countLatencies, 99)} ms`,
    );
    console.log(`messages: ${((changeDeliveries + countDeliveries) / seconds).toFixed(0)}/s delivered; subscription errors: ${errors}`);
    console.log(
      `gateway: CPU ${((100 * (after.cpuSeconds - before.cpuSeconds)) / seconds).toFixed(0)} % of one core, RSS ${(before.rss / MIB).toFixed(0)} MiB before, peak ${(peakRss / MIB).toFixed(0)} MiB (goal: under 1024 MiB)`,
    );
    // The generator shares the machine: when it is near a full core, it is what limits the deliveries.
    console.log(`load generator: CPU ${((generator.user + generator.system) / 10_000 / seconds).toFixed(0)} % of one core`);
    return true;
  } finally {
    await Promise.all(clients.map(async (client) => client.dispose()));
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await folder.remove();
  }
}

runBench(main);
