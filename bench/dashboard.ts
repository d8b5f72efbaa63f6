// The dashboard page of the graph: 50 Live datasets with their status, health, ingestion counts,
// connectors and alert rules, in one GraphQL query. Prints its SQL statements and its time against
// the plain list of the same 50 datasets. Targets: at most 8 statements, at most 2x the plain list.
// Both are kept in the published cache after their first answer (the page for GRAPHQL_FIGURES_MAX_AGE_MS
// at most, as it shows counts and health). The page executed is timed too, as a dashboard meets it
// once its figures expired: the same document (parsed and validated once, as every gateway keeps a
// document it saw) sent with variables of its own (unused ones, which execution ignores), so no kept
// answer serves it; target at most 3x the plain list. And, for reference, a new document text each
// time (a comment): parsed, validated and executed. Beside them, the page's floor (bench/floors.ts): a
// bare express + pg handler running the page's statements in the same three waves and building the
// same answer by hand, checked equal to the gateway's: what executing the page costs with nothing else.
//
// The gateway runs in this process with NODE_ENV=production (as the image and the other benches run
// it): graphql-js checks every type test the slow way outside production.
//
// Usage: node --import tsx bench/dashboard.ts   (BENCH_DASHBOARD_RUNS=<n> timed runs of each, 200 by default)
import { performance } from 'node:perf_hooks';
import { startDashboardFloor } from './floors.js';
import { startLocalGateway } from './local-gateway.js';
import { formatNumber, jsonHeaders, loadAverage, log, logMachine, positiveIntegerSetting, runBench } from './support.js';

const DATASETS = 50;
const STATEMENTS_MAX = 8;
const RATIO_MAX = 2;
const EXECUTED_RATIO_MAX = 3;

const PLAIN = `{ datasets(first: ${DATASETS}, filter: { status: [LIVE] }) { nodes { id datasetId name status } } }`;
const DASHBOARD = `{
  datasets(first: ${DATASETS}, filter: { status: [LIVE] }) {
    nodes {
      id datasetId name status
      health { status details { category status } }
      ingestion { received processed failed }
      connectors { instanceId connector { name status } }
      alertRules { name status channels { name } }
    }
  }
}`;

const definition = (n: number) => ({
  dataset_id: `dash-${n}`,
  name: `Dashboard ${n}`,
  type: 'event',
  data_schema: { type: 'object', properties: { id: { type: 'string' }, ts: { type: 'string', format: 'date-time' }, amount: { type: 'number' } } },
  dataset_config: { keys_config: { timestamp_key: 'ts' }, indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false } },
  connectors_config: [{ id: `in-${n}`, connector_id: n % 2 === 0 ? 'kafka-connector-1.0.0' : 'postgres-connector', connector_config: {} }],
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function main(): Promise<boolean> {
  const runs = positiveIntegerSetting('BENCH_DASHBOARD_RUNS', 200);
  // Before the gateway's modules load (startLocalGateway imports them): graphql-js reads it once.
  process.env.NODE_ENV = 'production';
  logMachine();
  const local = await startLocalGateway();
  const floor = await startDashboardFloor(local.databaseUrl, DATASETS);
  try {
    const post = async (query: string, variables?: Record<string, unknown>, url = local.url) => {
      const response = await fetch(`${url}/graphql`, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ query, variables }) });
      const body = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
      if (body.errors) throw new Error(`${query.slice(0, 60)}: ${JSON.stringify(body.errors).slice(0, 400)}`);
      return body.data!;
    };

    // 50 datasets made Live through the API (each with its datasource), then 2 alert rules each on 5 channels.
    for (let n = 1; n <= DATASETS; n += 1) {
      await post('mutation($d: JSON!) { importDataset(definition: $d) { id } }', { d: definition(n) });
      for (const to of ['READY_TO_PUBLISH', 'LIVE']) await post(`mutation { transitionDataset(id: "dash-${n}", to: ${to}) { id } }`);
    }
    const channels: string[] = [];
    for (let c = 1; c <= 5; c += 1) {
      const created = await post(`mutation { createNotificationChannel(input: { name: "dash-${c}", type: EMAIL, config: { recipientAddresses: "ops@example.com" } }) { channel { channelId } } }`);
      channels.push((created as { createNotificationChannel: { channel: { channelId: string } } }).createNotificationChannel.channel.channelId);
    }
    for (let n = 1; n <= DATASETS; n += 1) {
      for (const k of [1, 2]) {
        await post('mutation($i: CreateAlertRuleInput!) { createAlertRule(input: $i) { alertRule { id } } }', {
          i: { name: `dash-rule-${n}-${k}`, category: 'dashboard', metric: 'up', operator: 'GT', thresholds: [1], labels: { dataset: `dash-${n}` }, channelIds: [channels[n % 5]] },
        });
      }
    }

    const measure = async (query: string) => {
      const before = local.gateway.database.statementCount();
      const data = await post(query);
      return { statements: local.gateway.database.statementCount() - before, rows: (data as { datasets: { nodes: unknown[] } }).datasets.nodes.length };
    };
    // A document of its own text each time (a comment) is never a kept answer: parsed, validated, executed.
    const reparsed = (run: number) => `${DASHBOARD}\n# run ${run}`;
    const plainCount = await measure(PLAIN);
    const dashboardCount = await measure(DASHBOARD);
    // The count is the pool's: a background job may fall within one request, so the fewest of three executions.
    for (const run of [-101, -102]) dashboardCount.statements = Math.min(dashboardCount.statements, (await measure(reparsed(run))).statements);
    const keptCount = await measure(DASHBOARD);
    if (plainCount.rows !== DATASETS || dashboardCount.rows !== DATASETS) throw new Error(`expected ${DATASETS} datasets, got ${plainCount.rows} and ${dashboardCount.rows}`);
    // The floor does the page's whole work only if it answers what the gateway answers.
    const [gatewayPage, floorPage] = [JSON.stringify(await post(DASHBOARD, { run: -100 })), JSON.stringify(await post(DASHBOARD, undefined, floor.url))];
    if (gatewayPage !== floorPage) throw new Error(`the floor's page differs from the gateway's:\n${floorPage.slice(0, 600)}\n${gatewayPage.slice(0, 600)}`);

    const times: Record<'plain' | 'plainExecuted' | 'dashboard' | 'executed' | 'reparsed' | 'floor', number[]> = {
      plain: [],
      plainExecuted: [],
      dashboard: [],
      executed: [],
      reparsed: [],
      floor: [],
    };
    for (let warm = 0; warm < 20; warm += 1) {
      await Promise.all([post(PLAIN), post(PLAIN, { run: -warm - 1 }), post(DASHBOARD), post(DASHBOARD, { run: -warm - 1 }), post(reparsed(-warm - 1)), post(DASHBOARD, undefined, floor.url)]);
    }
    for (let run = 0; run < runs; run += 1) {
      // Alternated, so a change in the machine's load falls on all alike.
      for (const [name, query, variables, url] of [
        ['plain', PLAIN, undefined, local.url],
        ['plainExecuted', PLAIN, { run }, local.url],
        ['dashboard', DASHBOARD, undefined, local.url],
        ['executed', DASHBOARD, { run }, local.url],
        ['reparsed', reparsed(run), undefined, local.url],
        ['floor', DASHBOARD, undefined, floor.url],
      ] as const) {
        const start = performance.now();
        await post(query, variables, url);
        times[name].push(performance.now() - start);
      }
    }
    const ratio = median(times.dashboard) / median(times.plain);
    const executedRatio = median(times.executed) / median(times.plain);
    const executedBoth = median(times.executed) / median(times.plainExecuted);
    const executedFloor = median(times.executed) / median(times.floor);
    log('');
    log(`GraphQL dashboard page: ${DATASETS} Live datasets with status, health, ingestion counts, connectors and alert rules (${runs} sequential runs each)`);
    log(`  query                      SQL statements   p50 ms   p90 ms`);
    log(
      `  plain list                 ${String(plainCount.statements).padStart(14)}   ${formatNumber(median(times.plain), 2).padStart(6)}   ${formatNumber(percentile(times.plain, 0.9), 2).padStart(6)}`,
    );
    log(
      `  plain list, executed       ${String(plainCount.statements).padStart(14)}   ${formatNumber(median(times.plainExecuted), 2).padStart(6)}   ${formatNumber(percentile(times.plainExecuted, 0.9), 2).padStart(6)}   (not kept, as the executed page)`,
    );
    log(
      `  dashboard page             ${String(dashboardCount.statements).padStart(14)}   ${formatNumber(median(times.dashboard), 2).padStart(6)}   ${formatNumber(percentile(times.dashboard, 0.9), 2).padStart(6)}`,
    );
    log(
      `  dashboard page, executed   ${String(dashboardCount.statements).padStart(14)}   ${formatNumber(median(times.executed), 2).padStart(6)}   ${formatNumber(percentile(times.executed, 0.9), 2).padStart(6)}   (figures expired: the same document, not kept)`,
    );
    log(
      `  dashboard page, new text   ${String(dashboardCount.statements).padStart(14)}   ${formatNumber(median(times.reparsed), 2).padStart(6)}   ${formatNumber(percentile(times.reparsed, 0.9), 2).padStart(6)}   (parsed and validated too, for reference)`,
    );
    log(
      `  page floor (express + pg)  ${String(dashboardCount.statements).padStart(14)}   ${formatNumber(median(times.floor), 2).padStart(6)}   ${formatNumber(percentile(times.floor, 0.9), 2).padStart(6)}   (the page's SQL and answer, nothing else)`,
    );
    log(
      `  dashboard / plain (p50)    ${formatNumber(ratio, 2)}x (target <= ${RATIO_MAX}x); statements ${dashboardCount.statements} executed, ${keptCount.statements} kept (target <= ${STATEMENTS_MAX})`,
    );
    log(`  executed / plain (p50)     ${formatNumber(executedRatio, 2)}x (target <= ${EXECUTED_RATIO_MAX}x); ${formatNumber(executedBoth, 2)}x the plain list executed`);
    log(
      `  executed / floor (p50)     ${formatNumber(executedFloor, 2)}x; the floor itself ${formatNumber(median(times.floor) / median(times.plain), 2)}x the plain list; load average ${loadAverage()} at the end`,
    );
    const met = dashboardCount.statements <= STATEMENTS_MAX && ratio <= RATIO_MAX && executedRatio <= EXECUTED_RATIO_MAX;
    if (!met) log('  FAILED: the dashboard page missed a target');
    return met;
  } finally {
    await floor.stop();
    await local.stop();
  }
}

runBench(main);
