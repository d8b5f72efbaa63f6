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
import { benchmarkEvents } from './inference-events.js';

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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function megabytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const events = benchmarkEvents(EVENTS);
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
