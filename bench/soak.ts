// `node --expose-gc --import tsx bench/soak.ts`: a bounded soak on loopback. Starts a gateway on an
// embedded PostgreSQL of its own (127.0.0.1 only, AUTH_MODE=jwt so that every call is
// authenticated, rate limits off), then for SOAK_MINUTES (default 10) keeps SOAK_CONCURRENCY
// (default 8) clients busy with a mix of REST and GraphQL calls: template and dataset reads and
// lists, template runs, ingestion, and refused calls (bad input, no token, wrong role). Every 30 s
// it samples the process memory (after a GC when --expose-gc is given). It reports calls, errors
// (a 5xx, no answer, or a status other than the call expects), latency, memory growth after the
// first minute, and whether every acknowledged event is stored. Exit 1 on any error.
import { SignJWT } from 'jose';
import { startLocalGateway } from './local-gateway.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 8);
const SAMPLE_EVERY_MS = 30_000;
const SECRET = 'soak-secret-of-at-least-thirty-two-chars';
const ISSUER = 'https://soak.local';
const AUDIENCE = 'gateway';

const gc = (globalThis as { gc?: () => void }).gc;
const mib = (bytes: number) => bytes / 2 ** 20;

async function bearer(roles: string[], sub = 'soak'): Promise<string> {
  const jwt = await new SignJWT({ roles })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(SECRET));
  return `Bearer ${jwt}`;
}

const envelope = (id: string, request?: unknown, extra: Record<string, unknown> = {}) => ({
  id,
  ver: 'v2',
  ts: new Date().toISOString(),
  params: { msgid: 'soak' },
  ...(request === undefined ? {} : { request }),
  ...extra,
});

interface Call {
  name: string;
  expect: number;
  run(url: string): Promise<Response>;
  ingested?: number;
}

const local = await startLocalGateway({ AUTH_MODE: 'jwt', JWT_SECRET: SECRET, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE, RATE_LIMIT_RPS: '0', RATE_LIMIT_INGEST_RPS: '0', NODE_ENV: 'production' });
let exitCode: number;
try {
  const { definition } = await import('../test/support/datasets.js');
  const admin = await bearer(['admin']);
  const viewer = await bearer(['viewer'], 'soak-viewer');
  const post = (url: string, path: string, body: unknown, authorization = admin) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify(body) });
  const get = (url: string, path: string, authorization = admin) => fetch(`${url}${path}`, { headers: { authorization } });

  // Seed: 20 templates, 5 Live datasets.
  for (let i = 0; i < 20; i += 1) {
    const response = await post(
      local.url,
      '/v2/template/create',
      envelope('api.query.template.create', {
        template_name: `Soak ${i}`,
        query_type: 'sql',
        query: 'SELECT COUNT(*) AS n FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}',
      }),
    );
    if (response.status !== 200) throw new Error(`seeding a template: ${response.status} ${await response.text()}`);
  }
  for (let i = 0; i < 5; i += 1) {
    const id = `soak-${i}`;
    for (const [path, apiId, request] of [
      ['/v2/datasets/import', 'api.datasets.import', definition(id)],
      ['/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: id, status: 'ReadyToPublish' }],
      ['/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: id, status: 'Live' }],
    ] as const) {
      const response = await post(local.url, path, envelope(apiId, request));
      if (response.status !== 200) throw new Error(`seeding ${id}: ${response.status} ${await response.text()}`);
    }
  }

  let sequence = 0;
  const batch = 10;
  const calls: Call[] = [
    { name: 'REST template read', expect: 200, run: (u) => get(u, `/v2/template/read/soak_${sequence % 20}`) },
    { name: 'REST template list', expect: 200, run: (u) => post(u, '/v2/template/list', envelope('api.query.template.list', { limit: 10 })) },
    { name: 'REST dataset read', expect: 200, run: (u) => get(u, `/v2/datasets/read/soak-${sequence % 5}`, viewer) },
    { name: 'REST dataset list', expect: 200, run: (u) => post(u, '/v2/datasets/list', envelope('api.datasets.list', {}), viewer) },
    {
      name: 'REST ingest (10 events)',
      expect: 200,
      ingested: batch,
      run: (u) => {
        const n = (sequence += 1);
        const events = Array.from({ length: batch }, (_, i) => ({ id: `e${n}-${i}`, ts: new Date().toISOString(), userid: `u${i}`, amount: i }));
        return post(u, `/v2/data/in/soak-${n % 5}`, { id: 'api.data.in', ver: 'v2', ts: new Date().toISOString(), params: { msgid: `m${n}` }, data: events });
      },
    },
    {
      name: 'REST template run',
      expect: 200,
      run: (u) =>
        post(
          u,
          `/v2/template/query/soak_${sequence % 20}`,
          envelope('api.query.template.query', { startdate: '2026-01-01', enddate: '2026-01-10', dataset: `soak-${sequence % 5}`, aggregationLevel: 'day', limit: 10 }),
        ),
    },
    { name: 'GraphQL templates', expect: 200, run: (u) => post(u, '/graphql', { query: '{ templates(first: 20) { totalCount nodes { id name } } }' }) },
    {
      name: 'GraphQL dataset',
      expect: 200,
      run: (u) => post(u, '/graphql', { query: 'query D($id: ID!) { dataset(id: $id) { id status version } }', variables: { id: `soak-${sequence % 5}` } }, viewer),
    },
    { name: 'REST bad input (400)', expect: 400, run: (u) => post(u, '/v2/template/create', envelope('api.query.template.create', { template_name: 1 })) },
    { name: 'REST no token (401)', expect: 401, run: (u) => fetch(`${u}/v2/template/list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }) },
    { name: 'REST wrong role (403)', expect: 403, run: (u) => post(u, '/v2/template/list', envelope('api.query.template.list', {}), viewer) },
  ];

  const stats = new Map<string, { count: number; errors: number; latencies: number[] }>(calls.map((call) => [call.name, { count: 0, errors: 0, latencies: [] }]));
  const errorSamples: string[] = [];
  let acknowledgedEvents = 0;
  const samples: { minute: number; rss: number; heap: number }[] = [];
  const started = Date.now();
  const endAt = started + MINUTES * 60_000;
  const sample = () => {
    gc?.();
    const memory = process.memoryUsage();
    samples.push({ minute: (Date.now() - started) / 60_000, rss: mib(memory.rss), heap: mib(memory.heapUsed) });
    const last = samples.at(-1)!;
    const total = [...stats.values()].reduce((n, s) => n + s.count, 0);
    console.log(`  ${last.minute.toFixed(1)} min: ${total} calls, rss ${last.rss.toFixed(0)} MiB, heap ${last.heap.toFixed(1)} MiB${gc ? ' (after GC)' : ''}`);
  };
  console.log(`soak: ${MINUTES} min, ${CONCURRENCY} clients, gateway ${local.url} (AUTH_MODE=jwt, loopback)`);
  sample();
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);

  const worker = async (w: number) => {
    let i = w;
    while (Date.now() < endAt) {
      const call = calls[i++ % calls.length]!;
      const s = stats.get(call.name)!;
      const t0 = performance.now();
      try {
        const response = await call.run(local.url);
        await response.arrayBuffer();
        s.latencies.push(performance.now() - t0);
        s.count += 1;
        if (response.status !== call.expect) {
          s.errors += 1;
          if (errorSamples.length < 10) errorSamples.push(`${call.name}: ${response.status}`);
        } else if (call.ingested) acknowledgedEvents += call.ingested;
      } catch (error) {
        s.count += 1;
        s.errors += 1;
        if (errorSamples.length < 10) errorSamples.push(`${call.name}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  clearInterval(sampler);
  sample();

  const seconds = (Date.now() - started) / 1000;
  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  };
  const all = [...stats.values()];
  const total = all.reduce((n, s) => n + s.count, 0);
  const errors = all.reduce((n, s) => n + s.errors, 0);
  console.log(`\n${total} calls in ${seconds.toFixed(0)} s (${(total / seconds).toFixed(0)}/s), errors ${errors}`);
  for (const [name, s] of stats) {
    console.log(`  ${name.padEnd(26)} ${String(s.count).padStart(7)} calls  errors ${s.errors}  p50 ${percentile(s.latencies, 50).toFixed(1)} ms  p99 ${percentile(s.latencies, 99).toFixed(1)} ms`);
  }
  for (const line of errorSamples) console.log(`  error: ${line}`);

  // Memory: growth from the first sample after the first minute (caches and pools warm) to the end,
  // and the slope of a least-squares line through the samples after it.
  const warm = samples.filter((s) => s.minute >= Math.min(1, MINUTES / 2));
  const first = warm[0] ?? samples[0]!;
  const last = samples.at(-1)!;
  const n = warm.length;
  const meanX = warm.reduce((a, s) => a + s.minute, 0) / n;
  const meanY = warm.reduce((a, s) => a + s.heap, 0) / n;
  const slope = n > 1 ? warm.reduce((a, s) => a + (s.minute - meanX) * (s.heap - meanY), 0) / warm.reduce((a, s) => a + (s.minute - meanX) ** 2, 0) : 0;
  console.log(
    `memory: rss ${samples[0]!.rss.toFixed(0)} → ${first.rss.toFixed(0)} (after ${first.minute.toFixed(1)} min) → ${last.rss.toFixed(0)} MiB; ` +
      `heap${gc ? ' after GC' : ''} ${first.heap.toFixed(1)} → ${last.heap.toFixed(1)} MiB (${last.heap - first.heap >= 0 ? '+' : ''}${(last.heap - first.heap).toFixed(1)} MiB, slope ${slope.toFixed(2)} MiB/min)`,
  );

  const stored = await local.gateway.database.pool.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE dataset_id LIKE 'soak-%'");
  const storedEvents = Number(stored.rows[0]?.n ?? 0);
  console.log(`ingestion: ${acknowledgedEvents} events acknowledged, ${storedEvents} stored`);
  exitCode = errors === 0 && storedEvents >= acknowledgedEvents ? 0 : 1;
} finally {
  await local.stop();
}
process.exit(exitCode);
