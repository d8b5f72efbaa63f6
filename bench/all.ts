// `npm run bench`: every benchmark of docs/development.md's list, one after the other, each in a process of its
// own. A benchmark that misses its target or fails a check does not stop the ones after it (their
// figures are still wanted); the summary at the end names each one's outcome, and the exit status is
// non-zero when any failed.
import { spawnSync } from 'node:child_process';

const BENCHMARKS = ['gateway', 'dashboard', 'search', 'ingest-and-query', 'metrics-store', 'memory', 'scale'];

const outcomes: { name: string; status: number | null; seconds: number }[] = [];
for (const name of BENCHMARKS) {
  const started = performance.now();
  console.log(`\n===== bench/${name}.ts =====`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}.ts`], { stdio: 'inherit' });
  outcomes.push({ name, status: run.status, seconds: (performance.now() - started) / 1000 });
}

console.log('\nbenchmark          outcome                    seconds');
for (const { name, status, seconds } of outcomes) {
  console.log(`${name.padEnd(18)} ${(status === 0 ? 'ok' : `failed (exit ${String(status)})`).padEnd(26)} ${seconds.toFixed(0).padStart(7)}`);
}
process.exitCode = outcomes.some((outcome) => outcome.status !== 0) ? 1 : 0;
