// `node --expose-gc --import tsx bench/fuzz.ts`: the fuzz suite at full size. FUZZ_RUNS requests (default
// 10,000) over every REST entry and every GraphQL root field of a gateway on its own embedded
// PostgreSQL (loopback, AUTH_MODE=none), generated from the request schemas and argument types plus
// hostile values (see test/support/fuzz.ts). Prints the figures; exits 1 on any 500 (other than the
// contract's FAILED_TO_REGISTER_CONNECTOR), hang, malformed refusal, prototype pollution or crash.
// FUZZ_SEED replays a run, FUZZ_CONCURRENCY sets the requests in flight (default 8).
import { restEndpoints } from '../rest/endpoints.js';
import { buildSchema } from '../src/graphql/schema.js';
import { formatReport, runFuzz, seedFuzzData } from '../test/support/fuzz.js';
import { startLocalGateway } from './local-gateway.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);

let crashed: unknown;
process.on('uncaughtException', (error) => {
  crashed = error;
  console.error('uncaught exception:', error);
});
process.on('unhandledRejection', (error) => {
  crashed = error;
  console.error('unhandled rejection:', error);
});

const local = await startLocalGateway({ NOTIFY_TIMEOUT_MS: '500', ALERT_MANAGER_TIMEOUT_MS: '500' });
let exitCode: number;
try {
  console.log(`fuzzing ${local.url}: ${RUNS} requests, seed ${SEED}, ${CONCURRENCY} in flight, ${restEndpoints.length} REST entries`);
  const rssBefore = process.memoryUsage().rss;
  (globalThis as { gc?: () => void }).gc?.();
  const heapBefore = `${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`;
  let lastShown = 0;
  const report = await runFuzz(
    { url: local.url, endpoints: restEndpoints, schema: buildSchema('fuzz'), runs: RUNS, seed: SEED, concurrency: CONCURRENCY, timeoutMs: 30_000, before: () => seedFuzzData(local.url) },
    (done) => {
      if (done - lastShown >= 1000) {
        lastShown = done;
        console.log(`  ${done} / ${RUNS}`);
      }
    },
  );
  console.log(formatReport(report));
  const health = await fetch(`${local.url}/readyz`);
  // The gateway runs in this process, next to the generated requests (held until the run ends): the
  // heap after a collection says what the gateway kept; rss also counts pages V8 has not given back.
  const heapUsed = () => `${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  console.log(
    `  readiness after the run: ${health.status}; rss ${(rssBefore / 2 ** 20).toFixed(0)} → ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB; ` +
      `heap ${heapBefore} → ${gc ? `${heapUsed()} after GC` : `${heapUsed()} (run with --expose-gc for the figure after a collection)`}; crashed: ${crashed !== undefined}`,
  );
  exitCode = report.failures.length === 0 && !report.prototypePolluted && health.status === 200 && crashed === undefined ? 0 : 1;
} finally {
  await local.stop();
}
process.exit(exitCode);
