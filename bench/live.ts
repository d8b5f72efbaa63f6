// `npm run bench:live`: subscriptions at scale, on one gateway and on two gateways sharing one database.
//
// Builds dist/ and starts each gateway as `npm start` runs it, as a child process (NODE_ENV=production,
// silent logs, metrics sampled every second) on an embedded PostgreSQL this process starts; this
// process is the load generator, so the gateways' CPU and memory are their own. It seeds
// BENCH_DATASETS Live datasets (default 50) and opens BENCH_SUBSCRIBERS graphql-ws subscriptions
// (default 10,000) over BENCH_CONNECTIONS WebSockets (default 1,000), spread evenly over the gateways:
// half on ingestionCounts(every: 1) of the datasets, half on datasetChanged. For BENCH_DURATION
// seconds (default 20) it ingests a batch into every dataset each second and creates a dataset every
// 200 ms, both through the first gateway (so the second delivers what another copy committed); it
// measures once every subscription has been sent a warm-up change and a first step. It then
// waits for every create to be answered and for deliveries to stop, and prints, per field, deliveries
// against what was due ("every subscriber gets every change"), change-to-delivery p50/p99
// (datasetChanged: from the mutation sent, and from the record written, to the event received; ingestionCounts: from the end of the
// counted interval to its delivery), subscribers dropped as slow (4429), messages/s, and each gateway's
// CPU (of one core), CPU per 1,000 messages and peak RSS. BENCH_GATEWAYS chooses the runs ("1,2" by
// default). Goal (issue 37): every change delivered, p99 under 1 s, RSS under 1 GiB. Linux only (/proc).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { temporaryFolder } from './local-gateway.js';
import { logMachine, positiveIntegerSetting, postEnvelope, runBench, SettingError, startCommandArgs } from './support.js';

const MIB = 2 ** 20;
const INDEXING = { keys_config: { timestamp_key: 'ts' }, indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false } };
const SCHEMA = { type: 'object', properties: { id: { type: 'string' }, ts: { type: 'string' } } };
const CLOCK_TICKS = 100;
const CLOSE_SLOW_CONSUMER = 4429;
const WARM_UP = 'live_warm_up';

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface RunningGateway {
  url: string;
  child: ChildProcess;
}

async function startGatewayProcess(databaseUrl: string, dataDir: string, settings: Record<string, string>): Promise<RunningGateway> {
  const port = 30_000 + Math.floor(Math.random() * 20_000);
  // BENCH_NODE_FLAGS: extra node flags for the gateways (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
  const args = [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), ...startCommandArgs()];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ...settings },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); ;) {
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { url, child };
    if (child.exitCode !== null || Date.now() - started > 90_000) throw new Error('a gateway did not start');
    await sleep(100);
  }
}

async function stopGateway(gateway: RunningGateway): Promise<void> {
  if (gateway.child.exitCode !== null) return;
  gateway.child.kill('SIGTERM');
  await once(gateway.child, 'exit');
}

async function run(gatewayCount: number, subscribers: number, connections: number, datasets: number, duration: number): Promise<void> {
  const { startEmbeddedPostgres } = await import('../src/platform/database/embedded.js');
  const folder = await temporaryFolder('gateway-live-');
  const cluster = await startEmbeddedPostgres({ dataDir: path.join(folder.path, 'postgres'), port: 0, database: 'live' });
  const perConnection = Math.ceil(subscribers / connections);
  const settings = {
    AUTH_MODE: 'none',
    DB_POOL_MAX: '10',
    METRICS_SAMPLE_INTERVAL_SECONDS: '1',
    RATE_LIMIT_RPS: '1000000',
    RATE_LIMIT_INGEST_RPS: '1000000',
    LIVE_MAX_SUBSCRIPTIONS_PER_CALLER: String(subscribers * 2),
    LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: String(perConnection),
  };
  const gateways: RunningGateway[] = [];
  const clients: Client[] = [];
  try {
    for (let g = 0; g < gatewayCount; g += 1) gateways.push(await startGatewayProcess(cluster.url, path.join(folder.path, `gateway-${g}`), settings));
    const url = gateways[0]!.url;
    const ids = Array.from({ length: datasets }, (_, n) => `live_bench_${n}`);
    for (const id of ids) {
      await postEnvelope(url, '/v2/datasets/import', 'api.datasets.import', { dataset_id: id, name: id, type: 'event', api_version: 'v2', data_schema: SCHEMA, dataset_config: INDEXING }, id);
      for (const status of ['ReadyToPublish', 'Live']) await postEnvelope(url, '/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: id, status }, id);
    }
    console.log(`\n== ${gatewayCount} gateway(s) on one database: ${datasets} Live datasets; opening ${subscribers} subscriptions over ${connections} WebSockets…`);

    const sentAt = new Map<string, number>();
    const changeLatencies: number[] = [];
    /** From the record's write (its updatedAt) to the event received: delivery alone, without the mutation's own time. */
    const commitLatencies: number[] = [];
    const countLatencies: number[] = [];
    let changeDeliveries = 0;
    let countDeliveries = 0;
    let warmedUp = 0;
    let countingSubscribers = 0;
    let missedSteps = 0;
    let changeSubscribers = 0;
    let countSubscribers = 0;
    let errors = 0;
    let dropped = 0;
    let acknowledged = 0;
    let failedConnections = 0;
    let measuring = false;
    for (let c = 0; c < connections; c += 1) {
      const client = createClient({
        url: `${gateways[c % gatewayCount]!.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        lazy: false,
        retryAttempts: 0,
        onNonLazyError: () => (failedConnections += 1),
        on: {
          connected: () => (acknowledged += 1),
          closed: (event) => {
            if ((event as { code?: number }).code === CLOSE_SLOW_CONSUMER) dropped += 1;
          },
        },
      });
      clients.push(client);
      for (let s = 0; s < perConnection; s += 1) {
        const n = c * perConnection + s;
        if (n >= subscribers) break;
        if (n % 2 === 0) {
          changeSubscribers += 1;
          let warm = false;
          client.subscribe<{ datasetChanged: { datasetId: string; dataset: { updatedAt: string } | null } }>(
            { query: 'subscription { datasetChanged { datasetId kind dataset { updatedAt } } }' },
            {
              next: (result) => {
                if (!warm && result.data?.datasetChanged.datasetId.startsWith(WARM_UP)) {
                  warm = true;
                  warmedUp += 1;
                }
                const sent = sentAt.get(result.data?.datasetChanged.datasetId ?? '');
                if (!measuring || sent === undefined) return;
                changed.add(result.data!.datasetChanged.datasetId);
                changeDeliveries += 1;
                const now = Date.now();
                changeLatencies.push(now - sent);
                const written = Date.parse(result.data?.datasetChanged.dataset?.updatedAt ?? '');
                if (Number.isFinite(written)) commitLatencies.push(now - written);
              },
              error: () => (errors += 1),
              complete: () => undefined,
            },
          );
        } else {
          countSubscribers += 1;
          /** The last step this subscriber was sent: a later one that is not the next means steps it missed. */
          let lastStep: number | undefined;
          client.subscribe<{ ingestionCounts: { t: string; eventsIn: number } }>(
            { query: 'subscription($id: String!) { ingestionCounts(datasetId: $id, every: 1) { t eventsIn } }', variables: { id: ids[Math.floor(n / 2) % datasets] } },
            {
              next: (result) => {
                if (!result.data) return;
                const step = Date.parse(result.data.ingestionCounts.t);
                if (lastStep === undefined) countingSubscribers += 1;
                else if (measuring && step > lastStep + 1000) missedSteps += (step - lastStep) / 1000 - 1;
                lastStep = Math.max(step, lastStep ?? step);
                if (!measuring) return;
                countDeliveries += 1;
                countLatencies.push(Date.now() - step);
              },
              error: () => (errors += 1),
              complete: () => undefined,
            },
          );
        }
      }
      // Open them a hundred at a time, each batch acknowledged before the next (a burst of thousands
      // would measure the generator's own event loop).
      if ((c + 1) % 100 === 0) while (acknowledged + failedConnections < c + 1) await sleep(20);
    }
    while (acknowledged + failedConnections < connections) await sleep(50);
    if (failedConnections > 0) console.log(`${failedConnections} connections failed to open`);
    // Every subscription active before measuring: each datasetChanged subscriber has been sent a
    // warm-up dataset's creation and each ingestionCounts subscriber a first step (at most 120 s).
    // A subscribe still queued on a busy gateway misses a warm-up change: one more every 5 s until each has had one.
    for (let started = Date.now(), round = 0; (warmedUp < changeSubscribers || countingSubscribers < countSubscribers) && Date.now() - started < 120_000; round += 1) {
      const warmUp = `${WARM_UP}_${round}`;
      if (warmedUp < changeSubscribers)
        await postEnvelope(url, '/v2/datasets/import', 'api.datasets.import', { dataset_id: warmUp, name: warmUp, type: 'event', data_schema: SCHEMA, dataset_config: INDEXING }, warmUp);
      for (const waited = Date.now(); (warmedUp < changeSubscribers || countingSubscribers < countSubscribers) && Date.now() - waited < 5_000;) await sleep(200);
    }
    if (warmedUp < changeSubscribers || countingSubscribers < countSubscribers)
      console.log(`not every subscription was active after 120 s: ${warmedUp} of ${changeSubscribers} datasetChanged, ${countingSubscribers} of ${countSubscribers} ingestionCounts`);

    const before = gateways.map((gateway) => procStatus(gateway.child.pid!));
    const peakRss = before.map((status) => status.rss);
    const generatorBefore = process.cpuUsage();
    const started = Date.now();
    measuring = true;
    let sent = 0;
    /** The datasets created while measuring: answered OK, or delivered to a subscriber (a create answered late with an error may still commit). */
    const changed = new Set<string>();
    let ingests = 0;
    const pending = new Set<Promise<void>>();
    const track = (request: Promise<void>) => {
      pending.add(request);
      void request.finally(() => pending.delete(request));
    };
    const rssTimer = setInterval(() => gateways.forEach((gateway, g) => (peakRss[g] = Math.max(peakRss[g]!, procStatus(gateway.child.pid!).rss))), 100);
    const ingestTimer = setInterval(() => {
      for (const id of ids) {
        ingests += 1;
        const body = {
          id: 'api.data.in',
          ver: 'v2',
          ts: new Date().toISOString(),
          params: { msgid: `m${ingests}` },
          data: Array.from({ length: 10 }, (_, i) => ({ id: `e${i}`, ts: new Date().toISOString() })),
        };
        track(
          fetch(`${url}/v2/data/in/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
            (response) => void response.arrayBuffer(),
            () => undefined,
          ),
        );
      }
    }, 1_000);
    const changeTimer = setInterval(() => {
      const id = `live_change_${sent++}`;
      sentAt.set(id, Date.now());
      const body = {
        id: 'api.datasets.import',
        ver: 'v2',
        ts: new Date().toISOString(),
        params: { msgid: id },
        request: { dataset_id: id, name: id, type: 'event', data_schema: SCHEMA, dataset_config: INDEXING },
      };
      track(
        fetch(`${url}/v2/datasets/import`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
          async (response) => {
            await response.arrayBuffer();
            // A create answered OK is due to every subscriber (one answered with an error, if any subscriber is sent it).
            if (response.ok) changed.add(id);
          },
          () => undefined,
        ),
      );
    }, 200);
    await sleep(duration * 1000);
    clearInterval(ingestTimer);
    clearInterval(changeTimer);
    const sendingEnded = Date.now();
    // Every create answered, then deliveries drained.
    while (pending.size > 0) await Promise.all([...pending]);
    const answered = Date.now();
    // Until every change is delivered, or none arrives for 10 s (at most 60 s): a backlog shows in the latencies, not as losses.
    for (let last = -1, quietSince = Date.now(); changeDeliveries < changed.size * changeSubscribers && Date.now() - answered < 60_000 && Date.now() - quietSince < 10_000;) {
      if (changeDeliveries !== last) quietSince = Date.now();
      last = changeDeliveries;
      await sleep(500);
    }
    measuring = false;
    clearInterval(rssTimer);
    const after = gateways.map((gateway) => procStatus(gateway.child.pid!));
    const generator = process.cpuUsage(generatorBefore);
    const seconds = (Date.now() - started) / 1000;
    const messages = changeDeliveries + countDeliveries;

    changeLatencies.sort((a, b) => a - b);
    commitLatencies.sort((a, b) => a - b);
    countLatencies.sort((a, b) => a - b);
    const created = changed.size;
    const dueChanges = created * changeSubscribers;
    const intervals = Math.floor(seconds);
    console.log(
      `changes and ingests sent for ${((sendingEnded - started) / 1000).toFixed(1)} s, all answered at ${((answered - started) / 1000).toFixed(1)} s; deliveries drained until ${seconds.toFixed(1)} s`,
    );
    console.log(
      `${subscribers} subscriptions (${changeSubscribers} datasetChanged, ${countSubscribers} ingestionCounts of ${datasets} datasets) over ${connections} WebSockets on ${gatewayCount} gateway(s)`,
    );
    console.log(
      `datasetChanged: ${created} datasets created (of ${sent} sent, one each 200 ms); delivered ${changeDeliveries} of ${dueChanges} due (${((100 * changeDeliveries) / Math.max(1, dueChanges)).toFixed(2)} %); mutation sent → event received p50 ${percentile(changeLatencies, 50)} ms, p99 ${percentile(changeLatencies, 99)} ms; record written → event received p50 ${percentile(commitLatencies, 50)} ms, p99 ${percentile(commitLatencies, 99)} ms`,
    );
    console.log(
      `ingestionCounts: ${ingests} ingest calls of 10 events; delivered ${countDeliveries} points (about ${countSubscribers} × ${intervals} intervals = ${countSubscribers * intervals}), steps missed (a subscriber's step not sent before its next): ${missedSteps}; interval end → point received p50 ${percentile(countLatencies, 50)} ms, p99 ${percentile(countLatencies, 99)} ms`,
    );
    console.log(`messages: ${(messages / seconds).toFixed(0)}/s delivered; subscription errors: ${errors}; connections dropped as slow consumers (4429): ${dropped}`);
    gateways.forEach((_, g) => {
      const cpu = after[g]!.cpuSeconds - before[g]!.cpuSeconds;
      console.log(
        `gateway ${g + 1}: CPU ${((100 * cpu) / seconds).toFixed(0)} % of one core (${((1000 * cpu) / Math.max(1, messages)).toFixed(3)} s per 1,000 messages of all gateways), RSS ${(before[g]!.rss / MIB).toFixed(0)} MiB before, peak ${(peakRss[g]! / MIB).toFixed(0)} MiB (goal: under 1024 MiB)`,
      );
    });
    // The generator shares the machine: when it is near a full core, it is what limits the deliveries.
    console.log(`load generator: CPU ${((generator.user + generator.system) / 10_000 / seconds).toFixed(0)} % of one core`);
  } finally {
    await Promise.all(clients.map(async (client) => client.dispose()));
    await Promise.all(gateways.map(stopGateway));
    await cluster.stop();
    await folder.remove();
  }
}

async function main(): Promise<boolean> {
  const subscribers = positiveIntegerSetting('BENCH_SUBSCRIBERS', 10_000);
  const connections = Math.min(positiveIntegerSetting('BENCH_CONNECTIONS', 1_000), subscribers);
  const datasets = positiveIntegerSetting('BENCH_DATASETS', 50);
  const duration = positiveIntegerSetting('BENCH_DURATION', 20);
  const runs = (process.env.BENCH_GATEWAYS ?? '1,2').split(',').map((item) => Number(item.trim()));
  if (runs.some((count) => !Number.isInteger(count) || count < 1 || count > 4)) throw new SettingError('BENCH_GATEWAYS must list gateway counts from 1 to 4, e.g. "1,2"');
  logMachine();
  for (const count of runs) await run(count, subscribers, connections, datasets, duration);
  return true;
}

runBench(main);
