// The figures a dashboard tile asks of a list, at 100,000 rows: the audit trail holds 100,000 records
// over 30 days (written with one generate_series INSERT), and each figure is one GraphQL request over
// HTTP: an aggregate (count, first and last time) of the whole trail and of a `where`, and group
// counts by day, and by day and outcome. Prints p50 and p99 per request: cold (the first requests of
// a gateway started fresh on the loaded database, nothing kept) and warm, with the machine's load
// (`uptime`) before and after (the machine is shared). Target: an aggregate over 100,000 rows under
// 100 ms at p99 (warm).
//
// Usage: node --import tsx bench/analytics.ts   (BENCH_ANALYTICS_ROWS=<n> records, 100000 by default;
//        BENCH_ANALYTICS_RUNS=<n> timed warm runs of each request, 40 by default;
//        BENCH_ANALYTICS_COLD=<n> cold runs of each request, 5 by default)
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { auditList } from '../src/modules/audit/index.js';
import { aggregateSql, groupSql } from '../src/platform/lists/aggregate.js';
import { planList } from '../src/platform/lists/list-query.js';
import { startLocalGateway } from './local-gateway.js';
import { formatNumber, jsonHeaders, log, logMachine, positiveIntegerSetting, runBench } from './support.js';

const TARGET_AGGREGATE_P99_MS = 100;

/** The trail's first day; records spread over 30 days from it. */
const FROM = '2026-01-01T00:00:00Z';

interface Case {
  name: string;
  query: string;
  /** An aggregate over every record (the target's figure). */
  aggregateOfAll: boolean;
}

const CASES: Case[] = [
  { name: 'aggregate of the whole trail', query: '{ auditRecords(first: 0) { aggregate { count min { at } max { at } } } }', aggregateOfAll: true },
  {
    name: 'aggregate, where at >= first day (all rows)',
    query: `{ auditRecords(first: 0, where: { at: { gte: "${FROM}" } }) { aggregate { count min { at } max { at } } } }`,
    aggregateOfAll: true,
  },
  {
    name: 'aggregate, where outcome = FAILURE',
    query: '{ auditRecords(first: 0, where: { outcome: { eq: FAILURE } }) { aggregate { count min { at } max { at } } } }',
    aggregateOfAll: false,
  },
  { name: 'groupBy at by DAY', query: '{ auditRecords(first: 0) { groupBy(fields: [AT], bucket: DAY) { keys count } } }', aggregateOfAll: false },
  { name: 'groupBy at by DAY and outcome', query: '{ auditRecords(first: 0) { groupBy(fields: [AT, OUTCOME], bucket: DAY) { keys count } } }', aggregateOfAll: false },
  {
    name: 'aggregate + groupBy by DAY, one request',
    query: '{ auditRecords(first: 0) { aggregate { count } groupBy(fields: [AT], bucket: DAY) { keys count } } }',
    aggregateOfAll: false,
  },
];

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

async function main(): Promise<boolean> {
  const rows = positiveIntegerSetting('BENCH_ANALYTICS_ROWS', 100_000);
  const runs = positiveIntegerSetting('BENCH_ANALYTICS_RUNS', 40);
  const coldRuns = positiveIntegerSetting('BENCH_ANALYTICS_COLD', 5);
  logMachine();
  // No rate limit: the bench measures the figures, not the caller's budget.
  const local = await startLocalGateway({ RATE_LIMIT_RPS: '0', RATE_LIMIT_INGEST_RPS: '0' });
  try {
    const loadStart = performance.now();
    // One connection without the gateway's statement timeout: loading is not a request.
    const loader = await local.gateway.database.pool.connect();
    await loader.query('SET statement_timeout = 0');
    await loader.query(
      `INSERT INTO audit_records (at, request_id, actor, transport, api_id, operation, target_id, outcome, error_code)
       SELECT timestamptz '${FROM}' + (n::float8 / $1) * interval '30 days', 'bench-' || n, 'user-' || n % 50, CASE WHEN n % 3 = 0 THEN 'rest' ELSE 'graphql' END,
              NULL, (ARRAY['createDataset', 'updateDataset', 'createAlertRule', 'deleteAlertRule'])[1 + n % 4], 'target-' || n % 500,
              CASE WHEN n % 20 = 0 THEN 'failure' ELSE 'success' END, CASE WHEN n % 20 = 0 THEN 'DATASET_NOT_FOUND' END
         FROM generate_series(0, $1 - 1) AS n`,
      [rows],
    );
    // As autovacuum leaves a table that has settled: statistics, and the visibility map an index-only scan reads.
    await loader.query('VACUUM ANALYZE audit_records');
    await loader.query('RESET statement_timeout');
    loader.release();
    log(`loaded ${rows} audit records over 30 days in ${formatNumber((performance.now() - loadStart) / 1000, 1)} s`);

    // A fresh gateway on the loaded database: nothing kept, nothing planned, the table's size read at its start.
    await local.restart();
    const post = async (query: string) => {
      const response = await fetch(`${local.url}/graphql`, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ query }) });
      const body = (await response.json()) as { data?: { auditRecords: Record<string, unknown> }; errors?: unknown[] };
      if (body.errors) throw new Error(`${query}: ${JSON.stringify(body.errors).slice(0, 400)}`);
      return body.data!.auditRecords;
    };
    const timed = async (query: string) => {
      const start = performance.now();
      await post(query);
      return performance.now() - start;
    };
    const loadBefore = uptime();
    const cold = new Map<string, number[]>(CASES.map((entry) => [entry.name, []]));
    for (let run = 0; run < coldRuns; run += 1) for (const entry of CASES) cold.get(entry.name)!.push(await timed(entry.query));

    // What each answers, checked: every record counted, 30 days (31 buckets at most, the last partial).
    const all = (await post(CASES[0]!.query)) as { aggregate: { count: number } };
    if (all.aggregate.count !== rows) throw new Error(`the aggregate counted ${all.aggregate.count} records, not ${rows}`);
    const days = (await post(CASES[3]!.query)) as { groupBy: { count: number }[] };
    const counted = days.groupBy.reduce((sum, group) => sum + group.count, 0);
    if (counted !== rows || days.groupBy.length < 30 || days.groupBy.length > 31) throw new Error(`groupBy by DAY: ${days.groupBy.length} days, ${counted} records`);

    for (let warm = 0; warm < 3; warm += 1) for (const entry of CASES) await post(entry.query);
    const warm = new Map<string, number[]>(CASES.map((entry) => [entry.name, []]));
    // The same HTTP round trip without a figure: what the machine's load adds to every request.
    const floor: number[] = [];
    // Interleaved, so a change in the machine's load falls on every request alike.
    for (let run = 0; run < runs; run += 1) {
      for (const entry of CASES) warm.get(entry.name)!.push(await timed(entry.query));
      const start = performance.now();
      await fetch(`${local.url}/graphql`, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ query: '{ version }' }) }).then((response) => response.json());
      floor.push(performance.now() - start);
    }

    // The statements alone, straight to PostgreSQL (no HTTP, no GraphQL, no plan check): what the database takes.
    const rowsRead = planList(auditList, { first: 0 }, 0).rows;
    const statements = [
      { name: 'SQL of the aggregate of the whole trail', statement: aggregateSql(auditList, rowsRead) },
      { name: 'SQL of groupBy at by DAY', statement: groupSql(auditList, rowsRead, { fields: ['AT'], bucket: 'DAY' }) },
    ];
    const sqlTimes = new Map<string, number[]>(statements.map((entry) => [entry.name, []]));
    // The same statement through Prisma's raw query (as the lists send it): what the client adds.
    const viaPrisma: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      for (const entry of statements) {
        const start = performance.now();
        await local.gateway.database.pool.query(entry.statement.text, entry.statement.values);
        sqlTimes.get(entry.name)!.push(performance.now() - start);
      }
      const start = performance.now();
      await local.gateway.database.prisma.$queryRawUnsafe(statements[0]!.statement.text, ...statements[0]!.statement.values);
      viaPrisma.push(performance.now() - start);
    }
    // The statements (round trips to PostgreSQL) one warm request of each case sends: the fewest of 5
    // (the gateway's background jobs send some meanwhile).
    const statementsOf = new Map<string, number>();
    for (const entry of CASES) {
      for (let run = 0; run < 5; run += 1) {
        const before = local.gateway.database.statementCount();
        await post(entry.query);
        const sent = local.gateway.database.statementCount() - before;
        statementsOf.set(entry.name, Math.min(sent, statementsOf.get(entry.name) ?? sent));
      }
    }

    const cell = (values: number[]) => `${formatNumber(percentile(values, 0.5), 1).padStart(8)} ${formatNumber(percentile(values, 0.99), 1).padStart(8)}`;
    log('');
    log(`figures of the audit trail over GraphQL HTTP, ${rows} records (cold: the first ${coldRuns} of each on a fresh gateway; warm: ${runs} sequential runs each)`);
    log(`  ${'request'.padEnd(44)} ${'cold p50'.padStart(8)} ${'cold p99'.padStart(8)} ${'warm p50'.padStart(8)} ${'warm p99'.padStart(8)} statements (warm)`);
    for (const entry of CASES) log(`  ${entry.name.padEnd(44)} ${cell(cold.get(entry.name)!)} ${cell(warm.get(entry.name)!)} ${String(statementsOf.get(entry.name)).padStart(10)}`);
    for (const entry of statements) log(`  ${entry.name.padEnd(44)} ${''.padStart(17)} ${cell(sqlTimes.get(entry.name)!)}`);
    log(`  ${'the same aggregate through Prisma'.padEnd(44)} ${''.padStart(17)} ${cell(viaPrisma)}`);
    log(`  ${'floor: { version } over the same HTTP'.padEnd(44)} ${''.padStart(17)} ${cell(floor)}`);
    log(`  uptime before the requests: ${loadBefore}`);
    log(`  uptime at the end:          ${uptime()}  (2 cores, shared)`);
    const aggregateP99 = Math.max(...CASES.filter((entry) => entry.aggregateOfAll).map((entry) => percentile(warm.get(entry.name)!, 0.99)));
    const met = aggregateP99 < TARGET_AGGREGATE_P99_MS;
    log(
      met
        ? `  warm p99 of an aggregate over ${rows} rows ${formatNumber(aggregateP99, 1)} ms < ${TARGET_AGGREGATE_P99_MS} ms`
        : `  FAILED: warm p99 of an aggregate over ${rows} rows ${formatNumber(aggregateP99, 1)} ms (target < ${TARGET_AGGREGATE_P99_MS} ms)`,
    );
    return met;
  } finally {
    await local.stop();
  }
}

runBench(main);
