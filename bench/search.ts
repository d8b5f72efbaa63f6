// Search across the graph at 10,000 records: 4,000 dataset versions, 2,000 query templates, 2,000
// alert rules, 1,000 notification channels and 1,000 connector versions, written with SQL into
// their own tables (the search table's triggers index them as any write does), then typical
// searches over GraphQL HTTP, each with its facets and a page of 20 records as the graph's types,
// and type-aheads (`autocomplete`, 10 suggestions). Prints p50 and p99 latency per search, per kind
// of search (broad one-word searches match the most records), over all searches and over all
// type-aheads: cold (the first seconds of searching, before anything ran them) and warm, with the
// machine's load average before and after (the machine is shared). Targets: p99 under 50 ms over
// all searches, under 20 ms over all type-aheads (warm).
//
// Usage: node --import tsx bench/search.ts   (BENCH_SEARCH_RUNS=<n> timed runs of each search, 40 by default;
//        BENCH_SEARCH_COLD_MS=<ms> how long the cold phase lasts, 3000 by default)
import { performance } from 'node:perf_hooks';
import { startLocalGateway } from './local-gateway.js';
import { formatNumber, jsonHeaders, loadAverage, log, logMachine, positiveIntegerSetting, runBench } from './support.js';

const TARGET_SEARCH_P99_MS = 50;
const TARGET_AUTOCOMPLETE_P99_MS = 20;

const SEARCH = `query($q: String!, $types: [SearchType!], $after: String, $orderBy: [SearchOrder!], $first: Int, $last: Int) {
  search(query: $q, types: $types, orderBy: $orderBy, first: $first, after: $after, last: $last) {
    totalCount
    facets { type count }
    pageInfo { hasNextPage endCursor }
    edges {
      rank
      node {
        __typename
        ... on Dataset { id datasetId name status }
        ... on QueryTemplate { id templateId name }
        ... on Connector { id connectorVersionId name }
        ... on AlertRule { id alertRuleId name severity }
        ... on NotificationChannel { id channelId name }
      }
    }
  }
}`;

const AUTOCOMPLETE = `query($q: String!) { autocomplete(query: $q, first: 10) { suggestions { text type } } }`;

/** Type-ahead as a user types: one letter, a few, a word and a half, a typo. */
const TYPED = ['o', 'pay', 'shipm', 'refunds en', 'invoices summary 1', 'paymnets', 'campaign', 'zz'];

// Words the records are made of, so a search matches a realistic share of them.
const DOMAINS = ['orders', 'payments', 'shipments', 'customers', 'inventory', 'clicks', 'sensors', 'invoices', 'refunds', 'sessions', 'devices', 'campaigns'];
const KINDS = ['events', 'daily', 'hourly', 'raw', 'enriched', 'archive', 'realtime', 'summary'];
const FIELDS = ['customer_email', 'order_id', 'amount', 'currency', 'device_id', 'latitude', 'longitude', 'sku', 'warehouse_bin', 'campaign_code', 'session_id', 'status_code'];

/** Writes the records with one statement per table; the triggers fill the search table. */
async function load(pool: import('pg').Pool): Promise<void> {
  const words = (array: string[]) => `ARRAY[${array.map((word) => `'${word}'`).join(',')}]`;
  await pool.query(`
    INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, created_by, updated_by)
    SELECT 'ds-' || n, CASE WHEN n % 4 = 0 THEN 'draft' ELSE 'live' END,
           initcap((${words(DOMAINS)})[1 + n % 12] || ' ' || (${words(KINDS)})[1 + n % 8]) || ' ' || n,
           'event', CASE WHEN n % 4 = 0 THEN 'Draft' ELSE 'Live' END, ARRAY[(${words(DOMAINS)})[1 + (n / 7) % 12], 'team-' || n % 9], 'k',
           json_build_object('type', 'object', 'properties', json_build_object(
             (${words(FIELDS)})[1 + n % 12], json_build_object('type', 'string'),
             (${words(FIELDS)})[1 + (n / 3) % 12], json_build_object('type', 'string'),
             'meta', json_build_object('type', 'object', 'properties', json_build_object((${words(FIELDS)})[1 + (n / 5) % 12], json_build_object('type', 'number'))))),
           '{}', '[]', '[]', 'bench', 'bench'
      FROM generate_series(1, 4000) AS n`);
  await pool.query(`
    INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by)
    SELECT 'tpl_' || n, initcap((${words(DOMAINS)})[1 + n % 12] || ' report ' || (${words(KINDS)})[1 + n % 8]) || ' ' || n,
           'SELECT ' || (${words(FIELDS)})[1 + n % 12] || ', count(*) FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}', 'sql', 'bench', 'bench'
      FROM generate_series(1, 2000) AS n`);
  await pool.query(`
    INSERT INTO alert_rules (id, name, manager, description, metric, operator, thresholds, expression, category, evaluation_interval_ms, pending_for_ms, labels, created_by, updated_by)
    SELECT gen_random_uuid(), initcap((${words(DOMAINS)})[1 + n % 12]) || ' ' || (ARRAY['lag', 'errors', 'drop', 'spike'])[1 + n % 4] || ' ' || n, 'embedded',
           'Fires when ' || (${words(DOMAINS)})[1 + (n / 4) % 12] || ' processing ' || (ARRAY['lags', 'fails', 'stalls'])[1 + n % 3], 'up', 'gt', ARRAY[1]::float8[], 'up > 1',
           (${words(DOMAINS)})[1 + n % 12], 60000, 0, jsonb_build_object('team', 'team-' || n % 9), 'bench', 'bench'
      FROM generate_series(1, 2000) AS n`);
  await pool.query(`
    INSERT INTO notification_channels (id, manager, name, type, config, created_by, updated_by)
    SELECT gen_random_uuid(), 'embedded', (${words(DOMAINS)})[1 + n % 12] || '-' || (ARRAY['oncall', 'alerts', 'digest'])[1 + n % 3] || '-' || n, 'email',
           '{"recipientAddresses": "ops@example.com"}', 'bench', 'bench'
      FROM generate_series(1, 1000) AS n`);
  await pool.query(`
    INSERT INTO connector_registry (id, connector_id, name, type, category, version, description, technology, runtime, status, ui_spec, created_by, updated_by)
    SELECT 'bench-connector-' || n || '-1.0.0', 'bench-connector-' || n, initcap((${words(DOMAINS)})[1 + n % 12]) || ' source ' || n, 'source', 'Stream', '1.0.0',
           'Reads ' || (${words(DOMAINS)})[1 + (n / 2) % 12] || ' from an upstream system', 'scala', 'spark', 'Live', '{}', 'bench', 'bench'
      FROM generate_series(1, 1000) AS n`);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** What a search asks for, for the figures per kind: broad one-word searches rank the most matches. */
type Kind = 'broad' | 'narrow' | 'exact' | 'none';

interface Case {
  name: string;
  kind: Kind;
  variables: Record<string, unknown>;
}

const CASES: Case[] = [
  { name: 'one word, many matches ("orders")', kind: 'broad', variables: { q: 'orders' } },
  { name: 'one word, many matches ("daily")', kind: 'broad', variables: { q: 'daily' } },
  { name: 'a prefix ("ship")', kind: 'broad', variables: { q: 'ship' } },
  { name: 'a field name ("customer_email")', kind: 'broad', variables: { q: 'customer_email' } },
  { name: 'two words ("payments daily")', kind: 'narrow', variables: { q: 'payments daily' } },
  { name: 'part of a name ("voices sum")', kind: 'narrow', variables: { q: 'voices sum' } },
  { name: 'one type ("sessions", datasets)', kind: 'narrow', variables: { q: 'sessions', types: ['DATASET'] } },
  { name: 'an exact name ("Refunds Enriched 2420")', kind: 'exact', variables: { q: 'Refunds Enriched 2420' } },
  { name: 'no match ("quetzal")', kind: 'none', variables: { q: 'quetzal' } },
  { name: 'a typo ("paymnets")', kind: 'narrow', variables: { q: 'paymnets' } },
  { name: 'by name, backwards ("orders", last 20)', kind: 'broad', variables: { q: 'orders', orderBy: [{ field: 'NAME' }], last: 20 } },
];

async function main(): Promise<boolean> {
  const runs = positiveIntegerSetting('BENCH_SEARCH_RUNS', 40);
  const coldMs = positiveIntegerSetting('BENCH_SEARCH_COLD_MS', 3000);
  logMachine();
  const local = await startLocalGateway();
  try {
    const graphql = async <T>(query: string, variables: Record<string, unknown>, field: string): Promise<T> => {
      const response = await fetch(`${local.url}/graphql`, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ query, variables }) });
      const body = (await response.json()) as { data?: Record<string, T>; errors?: unknown[] };
      if (body.errors) throw new Error(`${field} ${JSON.stringify(variables)}: ${JSON.stringify(body.errors).slice(0, 400)}`);
      return body.data![field]!;
    };
    const post = (variables: Record<string, unknown>) => graphql<{ totalCount: number; edges: unknown[] }>(SEARCH, variables.last ? variables : { first: 20, ...variables }, 'search');
    const typeAhead = (q: string) => graphql<{ suggestions: unknown[] }>(AUTOCOMPLETE, { q }, 'autocomplete');
    const timed = async (run: () => Promise<unknown>) => {
      const start = performance.now();
      await run();
      return performance.now() - start;
    };
    const loadStart = performance.now();
    await load(local.gateway.database.pool);
    const indexed = await local.gateway.database.pool.query<{ count: number }>('SELECT count(*)::int AS count FROM search_documents');
    await local.gateway.database.pool.query('ANALYZE search_documents');
    await local.gateway.database.pool.query('ANALYZE search_lexicon');
    log(`loaded ${indexed.rows[0]!.count} searchable records (the built-in connectors included) in ${formatNumber((performance.now() - loadStart) / 1000, 1)} s`);
    const loadBefore = loadAverage();

    // Cold: the first seconds of searching, every search and type-ahead in turn, before any ran.
    const cold = { search: [] as number[], autocomplete: [] as number[] };
    const coldEnd = performance.now() + coldMs;
    for (let turn = 0; performance.now() < coldEnd; turn += 1) {
      cold.search.push(await timed(() => post(CASES[turn % CASES.length]!.variables)));
      cold.autocomplete.push(await timed(() => typeAhead(TYPED[turn % TYPED.length]!)));
    }

    const matches = new Map<string, number>();
    for (const entry of CASES) {
      const found = await post(entry.variables);
      if (entry.name.startsWith('no match') ? found.totalCount !== 0 : found.edges.length === 0) throw new Error(`${entry.name}: unexpected answer (${found.totalCount} matches)`);
      matches.set(entry.name, found.totalCount);
    }
    const suggested = new Map<string, number>();
    for (const q of TYPED) suggested.set(q, (await typeAhead(q)).suggestions.length);
    for (let warm = 0; warm < 5; warm += 1) {
      for (const entry of CASES) await post(entry.variables);
      for (const q of TYPED) await typeAhead(q);
    }
    const times = new Map<string, number[]>(CASES.map((entry) => [entry.name, []]));
    const typed = new Map<string, number[]>(TYPED.map((q) => [q, []]));
    // The same HTTP round trip without a search: what the machine's load adds to every request.
    const floor: number[] = [];
    // Interleaved, so a change in the machine's load falls on every search alike.
    for (let run = 0; run < runs; run += 1) {
      for (const entry of CASES) times.get(entry.name)!.push(await timed(() => post(entry.variables)));
      for (const q of TYPED) typed.get(q)!.push(await timed(() => typeAhead(q)));
      floor.push(await timed(() => fetch(`${local.url}/graphql`, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ query: '{ version }' }) }).then((response) => response.json())));
    }
    const row = (label: string, count: string, measured: number[]) =>
      log(`  ${label.padEnd(44)} ${count.padStart(8)} ${formatNumber(percentile(measured, 0.5), 2).padStart(8)} ${formatNumber(percentile(measured, 0.99), 2).padStart(8)}`);
    log('');
    log(`search over GraphQL HTTP, ${indexed.rows[0]!.count} records, page of 20 with facets and matched fields (${runs} sequential runs each, warm)`);
    log(`  ${'search'.padEnd(44)} ${'matches'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
    for (const entry of CASES) row(entry.name, String(matches.get(entry.name)), times.get(entry.name)!);
    log('');
    log(`  ${'by kind'.padEnd(44)} ${'searches'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
    const byKind = (kind: Kind) => CASES.filter((entry) => entry.kind === kind).flatMap((entry) => times.get(entry.name)!);
    for (const kind of ['broad', 'narrow', 'exact', 'none'] as const) {
      row(kind === 'broad' ? 'broad (hundreds to 1,400 matches)' : kind, String(CASES.filter((entry) => entry.kind === kind).length), byKind(kind));
    }
    log('');
    log(`autocomplete over GraphQL HTTP, 10 suggestions (${runs} sequential runs each, warm)`);
    log(`  ${'typed'.padEnd(44)} ${'found'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
    for (const q of TYPED) row(JSON.stringify(q), String(suggested.get(q)), typed.get(q)!);
    log('');
    const allSearch = [...times.values()].flat();
    const allTyped = [...typed.values()].flat();
    log(`  ${'over all'.padEnd(44)} ${'requests'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
    row(`search, cold (first ${formatNumber(coldMs / 1000, 1)} s)`, String(cold.search.length), cold.search);
    row('search, warm', String(allSearch.length), allSearch);
    row(`autocomplete, cold (first ${formatNumber(coldMs / 1000, 1)} s)`, String(cold.autocomplete.length), cold.autocomplete);
    row('autocomplete, warm', String(allTyped.length), allTyped);
    row('floor: { version } over the same HTTP', String(floor.length), floor);
    log(`  load average before the searches: ${loadBefore}; at the end: ${loadAverage()} (2 cores, shared)`);
    const searchP99 = percentile(allSearch, 0.99);
    const typedP99 = percentile(allTyped, 0.99);
    const met = searchP99 < TARGET_SEARCH_P99_MS && typedP99 < TARGET_AUTOCOMPLETE_P99_MS;
    log(
      met
        ? `  warm p99 under the targets: search ${formatNumber(searchP99, 2)} ms < ${TARGET_SEARCH_P99_MS} ms, autocomplete ${formatNumber(typedP99, 2)} ms < ${TARGET_AUTOCOMPLETE_P99_MS} ms`
        : `  FAILED: warm p99 search ${formatNumber(searchP99, 2)} ms (target < ${TARGET_SEARCH_P99_MS}), autocomplete ${formatNumber(typedP99, 2)} ms (target < ${TARGET_AUTOCOMPLETE_P99_MS})`,
    );
    return met;
  } finally {
    await local.stop();
  }
}

runBench(main);
