// Schema inference on 10,000 events of 50 fields: `node --import tsx bench/schema-inference.ts`.
//
// Times the service call both transports make (input checks plus the algorithm), without HTTP: a
// REST call of this size would first meet the request body limit (REQUEST_BODY_LIMIT, 1 MB by
// default). The events are generated from a fixed seed, so runs compare. Prints the median of
// BENCH_RUNS runs (default 5, after one warm-up), the memory inference adds at most (peak RSS minus
// the RSS before the first inference) and the heap one result keeps; the exit status says whether
// the median met the one-second target.
//
// Settings (environment): BENCH_EVENTS (default 10000), BENCH_RUNS (default 5).
import v8 from 'node:v8';
import vm from 'node:vm';
import { createSchemaInferenceService } from '../src/modules/schema-inference/index.js';

const TARGET_MS = 1_000;

function positiveIntegerSetting(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (got ${JSON.stringify(text)})`);
  return value;
}

const EVENTS = positiveIntegerSetting('BENCH_EVENTS', 10_000);
const RUNS = positiveIntegerSetting('BENCH_RUNS', 5);

// A collectable heap makes the memory figures mean something; the flag must be set before use.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

/** Mulberry32: a small seeded generator, so every run infers the same events. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const CITIES = ['Pune', 'Delhi', 'Agra', 'Goa', 'Kochi', 'Surat', 'Patna', 'Indore'];
const STATUSES = ['ok', 'ok', 'ok', 'retry', 'failed'];

/** One event with 50 top-level fields: text, integers, numbers, booleans, times, ids, nested objects and arrays. */
function makeEvent(random: () => number, index: number): Record<string, unknown> {
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const hex = (length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');
  const when = 1_700_000_000_000 + index * 1_000 + Math.floor(random() * 1_000);
  const event: Record<string, unknown> = {
    eid: pick(['INTERACT', 'IMPRESSION', 'AUDIT', 'LOG']),
    mid: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
    ets: when,
    syncts: Math.floor(when / 1000),
    event_time: new Date(when).toISOString(),
    event_date: new Date(when).toISOString().slice(0, 10),
    user_email: `user${index}@example.com`,
    client_ip: `10.${index % 256}.${Math.floor(index / 256) % 256}.${Math.floor(random() * 256)}`,
    page_url: `https://example.com/page/${Math.floor(random() * 500)}`,
    city: pick(CITIES),
    status: pick(STATUSES),
    context: { channel: pick(['web', 'app']), env: pick(['prod', 'test']), sid: `${hex(8)}-${hex(4)}-4${hex(3)}-b${hex(3)}-${hex(12)}`, did: hex(16) },
    actor: { id: `user-${Math.floor(random() * 5_000)}`, type: 'User', roles: [pick(['viewer', 'editor']), 'member'] },
    device: { os: pick(['android', 'ios', 'linux']), model: `m-${Math.floor(random() * 40)}`, memory_gb: pick([2, 4, 8]), battery: Math.round(random() * 1000) / 10 },
    geo: { lat: random() * 180 - 90, lon: random() * 360 - 180, accuracy_m: Math.floor(random() * 100) },
    cart: Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({ sku: `SKU-${Math.floor(random() * 900)}`, qty: 1 + Math.floor(random() * 4), price: Math.round(random() * 100_000) / 100 })),
    tags: Array.from({ length: Math.floor(random() * 3) }, () => pick(['new', 'promo', 'repeat'])),
    attrs: [
      { key: 'campaign', value: pick(['spring', 'summer']) },
      { key: 'variant', value: pick(['a', 'b']) },
    ],
  };
  for (let n = 0; n < 10; n += 1) event[`metric_${n}`] = Math.floor(random() * 10_000);
  for (let n = 0; n < 8; n += 1) event[`ratio_${n}`] = random();
  for (let n = 0; n < 6; n += 1) event[`flag_${n}`] = random() < 0.5;
  for (let n = 0; n < 6; n += 1) event[`label_${n}`] = `label-${n}-${Math.floor(random() * 20)}`;
  // Some fields come and go, and one is sometimes null, as in real feeds.
  if (random() < 0.9) event.referrer = `https://ref.example.org/${Math.floor(random() * 50)}`;
  event.coupon = random() < 0.3 ? null : `C${Math.floor(random() * 100)}`;
  return event;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function megabytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const random = seeded(20_261_122);
const events = Array.from({ length: EVENTS }, (_, index) => makeEvent(random, index));
const fields = Object.keys(events[0]!).length;
const inputBytes = Buffer.byteLength(JSON.stringify(events));
const service = createSchemaInferenceService();
collectGarbage();
const rssWithEvents = process.memoryUsage().rss;

console.log(`schema inference: ${EVENTS} events of ${fields} top-level fields (${megabytes(inputBytes)} as JSON), ${RUNS} runs after a warm-up`);
service.infer({ samples: events, dataset: 'bench' });

const times: number[] = [];
for (let run = 0; run < RUNS; run += 1) {
  collectGarbage();
  const started = process.hrtime.bigint();
  service.infer({ samples: events, dataset: 'bench' });
  times.push(Number(process.hrtime.bigint() - started) / 1e6);
}

// One more run, for what a result keeps once the garbage of inferring is collected.
collectGarbage();
const heapBefore = process.memoryUsage().heapUsed;
const result = service.infer({ samples: events, dataset: 'bench' });
collectGarbage();
const retainedBytes = process.memoryUsage().heapUsed - heapBefore;

const medianMs = median(times);
console.log(`  runs (ms):        ${times.map((time) => time.toFixed(0)).join(', ')}`);
console.log(`  median:           ${medianMs.toFixed(0)} ms (${Math.round((EVENTS / medianMs) * 1000).toLocaleString('en-US')} events/s)`);
console.log(
  `  result:           ${Object.keys(result.schema.properties).length} properties, ${result.suggestions.length} suggestions, ${megabytes(Buffer.byteLength(JSON.stringify(result)))} as JSON`,
);
const peakRss = process.resourceUsage().maxRSS * 1024;
console.log(
  `  memory:           peak RSS ${megabytes(peakRss)}, ${megabytes(rssWithEvents)} before the first inference (runtime and events), ` +
    `so inference adds at most ${megabytes(peakRss - rssWithEvents)}; one result keeps ${megabytes(retainedBytes)} of heap`,
);
console.log(`  target under ${TARGET_MS} ms: ${medianMs < TARGET_MS ? 'met' : 'MISSED'}`);
process.exitCode = medianMs < TARGET_MS ? 0 : 1;
