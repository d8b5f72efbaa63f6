// The list contract on 100,000 rows (the audit trail and a rule's notifications included): every filter and every order a list declares is planned by
// PostgreSQL with an index (no sequential scan of the table), for the first page and for a page
// after a keyset cursor. The statements are the ones the gateway runs, built by planList from the
// lists' declarations, so a field declared without its index fails here.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { PRISMA_RAW_TYPES, runSql } from '../../src/platform/database/sql-statement.js';
import { LIST_DECLARATIONS } from '../../src/graphql/lists.js';
import type { ListDeclaration, ListField } from '../../src/platform/lists/declaration.js';
import { GatewayError } from '../../src/errors.js';
import {
  checkCountIndexed,
  cursorOf,
  LARGE_TABLE_ROWS,
  planList,
  readList,
  type BoundSql,
  type CountSql,
  type ListOrderInput,
  type ListWhere,
  type RunSql,
} from '../../src/platform/lists/list-query.js';
import { narrowsByIndex, operatorsOf, scanOperatorsOf } from '../../src/platform/lists/comparisons.js';
import { linkScope, perParent, planNested, type ListLink } from '../../src/platform/lists/nested-list.js';
import { alertRuleList, notificationList, notificationRuleLink, ruleDatasetLink } from '../../src/modules/alert-rules/index.js';
import { CLASH_SQL, templateDatasetLink, templateList } from '../../src/modules/templates/index.js';
import { createTestDatabase } from '../support/gateway.js';

const ROWS = 100_000;

// One INSERT ... SELECT generate_series per table: names, codes and times spread so that every
// value a filter below asks for matches a small share of the rows.
const SEED: Record<string, string> = {
  query_templates: `INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by, created_date, updated_date)
    SELECT 'tpl_' || g, 'Template ' || g, 'SELECT 1', CASE WHEN g % 10 = 0 THEN 'json' ELSE 'sql' END, 'user' || (g % 500), 'user' || (g % 500),
           now() - g * interval '1 second', now() - g * interval '2 second' FROM generate_series(1, ${ROWS}) g`,
  datasets: `INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, denorm_sources, created_by, updated_by, created_date, updated_date, alias)
    SELECT 'ds_' || g, CASE WHEN g % 4 < 2 THEN 'live' ELSE 'draft' END, 'Dataset ' || g, CASE WHEN g % 10 = 1 THEN 'master' ELSE 'event' END,
           (ARRAY['Live','Retired','Draft','ReadyToPublish'])[1 + g % 4], ARRAY['tag' || (g % 300), 'team' || (g % 40)], 'k', '{}', '{}', '[]', '[]', '{}', 'user', 'user',
           now() - g * interval '1 second', now() - g * interval '3 second', CASE WHEN g % 100 = 0 THEN 'alias_' || g END FROM generate_series(1, ${ROWS}) g`,
  connector_registry: `INSERT INTO connector_registry (id, connector_id, name, type, category, version, technology, runtime, status, ui_spec, created_by, updated_by, created_date, updated_date)
    SELECT 'conn_' || g || '-1.0.0', 'conn_' || g, 'Connector ' || g, 'source', (ARRAY['Database','File','Stream'])[1 + g % 3], '1.0.0', 'tech' || (g % 200), 'spark',
           (ARRAY['Live','Draft','Retired','InValidation'])[1 + g % 4], '{}', 'user', 'user', now() - g * interval '1 second', now() - g * interval '2 second' FROM generate_series(1, ${ROWS}) g`,
  alert_rules: `INSERT INTO alert_rules (id, name, manager, status, metric, operator, thresholds, expression, severity, category, evaluation_interval_ms, pending_for_ms, context, created_by, updated_by, created_date, updated_date)
    SELECT gen_random_uuid(), 'Rule ' || g, (ARRAY['embedded','alertmanager','grafana'])[1 + g % 3], (ARRAY['draft','live','retired'])[1 + g % 3], 'm', 'gt', '{1}', 'm > 1',
           CASE WHEN g % 7 = 0 THEN 'critical' ELSE 'warning' END, 'cat' || (g % 300), 60000, 0, jsonb_build_object('alertType', 'type' || (g % 400)), 'user', 'user',
           now() - g * interval '1 second', now() - g * interval '2 second' FROM generate_series(1, ${ROWS}) g`,
  alert_silences: `INSERT INTO alert_silences (id, alert_id, manager, start_time, end_time, comment, created_by, updated_by, created_date, updated_date)
    SELECT gen_random_uuid(), gen_random_uuid(), (ARRAY['embedded','alertmanager','grafana'])[1 + g % 3], now() - g * interval '1 second', now() + g * interval '1 second', 'c', 'user', 'user',
           now() - g * interval '3 second', now() - g * interval '3 second' FROM generate_series(1, ${ROWS}) g`,
  metric_aliases: `INSERT INTO metric_aliases (id, alias, component, sub_component, metric, created_by, updated_by, created_date, updated_date)
    SELECT gen_random_uuid(), 'alias_' || g, 'component' || (g % 300), 'part' || (g % 700), 'm', 'user', 'user', now() - g * interval '1 second', now() - g * interval '2 second'
      FROM generate_series(1, ${ROWS}) g`,
  audit_records: `INSERT INTO audit_records (at, request_id, actor, transport, api_id, operation, target_id, outcome, error_code)
    SELECT now() - (${ROWS} - g) * interval '1 second', 'req-' || g, 'user' || (g % 500), CASE WHEN g % 3 = 0 THEN 'rest' ELSE 'graphql' END,
           CASE WHEN g % 3 = 0 THEN 'api.call.' || (g % 150) END, 'mutation' || (g % 120), 'target_' || (g % 20000), CASE WHEN g % 10 = 0 THEN 'failure' ELSE 'success' END,
           CASE WHEN g % 10 = 0 THEN 'CODE_' || (g % 60) END FROM generate_series(1, ${ROWS}) g`,
  // A rule's notifications need their rule: 500 rules of their own, made by the same statement.
  alert_notifications: `WITH rules AS (
      INSERT INTO alert_rules (id, name, manager, status, metric, operator, thresholds, expression, severity, category, evaluation_interval_ms, pending_for_ms, context, created_by, updated_by)
      SELECT gen_random_uuid(), 'Notified rule ' || r, 'embedded', 'live', 'm', 'gt', '{1}', 'm > 1', 'warning', 'notified', 60000, 0, '{}', 'user', 'user' FROM generate_series(0, 499) r RETURNING id),
    numbered AS (SELECT id, (row_number() OVER ())::int - 1 AS n FROM rules)
    INSERT INTO alert_notifications (id, rule_id, channel_id, kind, evaluated_at, outcome, subject, text, transport, attempts, created_date)
    SELECT gen_random_uuid(), numbered.id, md5('channel' || (g % 300))::uuid, (ARRAY['firing','repeat','resolved'])[1 + g % 3], now() - g * interval '1 second',
           (ARRAY['pending','sent','failed','silenced'])[1 + g % 4], 's', 't', CASE WHEN g % 4 = 1 THEN 'smtp' || (g % 50) END, g % 3, now() - g * interval '2 second'
      FROM generate_series(1, ${ROWS}) g JOIN numbered ON numbered.n = g % 500`,
  notification_channels: `INSERT INTO notification_channels (id, manager, name, type, status, config, created_by, updated_by, created_date, updated_date)
    SELECT gen_random_uuid(), (ARRAY['embedded','grafana'])[1 + g % 2], 'Channel ' || g, (ARRAY['email','slack','teams'])[1 + g % 3], (ARRAY['draft','live','retired'])[1 + g % 3],
           '{}', 'user', 'user', now() - g * interval '1 second', now() - g * interval '2 second' FROM generate_series(1, ${ROWS}) g`,
};

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  // The change announcements are for running gateways; none runs on this database.
  await Promise.all(
    Object.entries(SEED).map(async ([table, insert]) => {
      await pool.query(`ALTER TABLE "${table}" DISABLE TRIGGER USER`);
      // Building the indexes once after the rows is much quicker than keeping them up to date row by row.
      const { rows: indexes } = await pool.query<{ name: string; definition: string }>(
        `SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = 'public' AND tablename = $1 AND indexname NOT LIKE '%_pkey'`,
        [table],
      );
      for (const index of indexes) await pool.query(`DROP INDEX "${index.name}"`);
      await pool.query(insert);
      for (const index of indexes) await pool.query(index.definition);
      await pool.query(`ANALYZE "${table}"`);
    }),
  );
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** The plan's scans of `table`: each must go through an index. */
async function scansOf(statement: BoundSql, table: string): Promise<{ types: string[]; indexes: string[] }> {
  const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
  const scans = nodesOf(rows[0]!['QUERY PLAN'][0].Plan).filter((node) => node['Relation Name'] === table);
  return { types: scans.map((node) => node['Node Type']), indexes: scans.map((node) => node['Index Name'] ?? '') };
}

function expectIndexed(scans: { types: string[]; indexes: string[] }, what: string): void {
  // Seen as { what, scans } so that a failure names the filter or order and the plan's scans.
  expect({ what, scans: scans.types, indexed: scans.types.length > 0 && scans.types.every((type) => /Index|Bitmap Heap/.test(type)) }).toEqual({ what, scans: scans.types, indexed: true });
}

/** A `where` on one field with one operator, its value taken from a row in the middle of the table. */
async function whereFor(declaration: ListDeclaration, name: string, field: ListField, operator: string): Promise<ListWhere> {
  const column = /^[a-z_]+$/.test(field.column) ? `"${field.column}"` : field.column;
  // From the middle of the rows that hold a value (at most the 5000th), so that the filter compares something.
  const { rows } = await pool.query<{ value: unknown }>(
    `SELECT ${column} AS value FROM "${declaration.table}" WHERE ${column} IS NOT NULL ORDER BY ${column} OFFSET LEAST(5000, (SELECT count(*) / 2 FROM "${declaration.table}" WHERE ${column} IS NOT NULL)) LIMIT 2`,
  );
  expect({ field: name, values: rows.length }).toEqual({ field: name, values: 2 });
  // A set (a dataset's tags) is compared by the values it holds.
  const [one, two] = rows.map((row) => (Array.isArray(row.value) ? (row.value as unknown[])[0] : row.value));
  const text = typeof one === 'string' ? one : '';
  const operand = operator === 'in' ? [one, two] : operator === 'contains' ? text.slice(-6) : operator === 'startsWith' ? text.slice(0, text.length - 1) : one;
  return { [name]: { [operator]: operand } };
}

describe.each(LIST_DECLARATIONS.map(({ declaration }) => [declaration.type, declaration] as const))('the %s list on 100,000 rows', (_type, declaration) => {
  it('plans every filter, each operator, with an index', async () => {
    // A field declared `scan` (computed from another table per row) is priced as a scan instead: see below.
    for (const [name, field] of Object.entries(declaration.fields).filter(([, candidate]) => !candidate.scan)) {
      for (const operator of operatorsOf(field.kind)) {
        const where = await whereFor(declaration, name, field, operator);
        const plan = planList(declaration, { where, first: 100 }, 1000);
        expectIndexed(await scansOf(plan.page, declaration.table), `${name} ${operator}`);
      }
    }
  });

  it('plans its own order and every order a client may give, both ways, with an index, on the first page and either side of a cursor', async () => {
    const orders: [string, ListOrderInput[] | undefined][] = [['the default order', undefined]];
    for (const [name, field] of Object.entries(declaration.fields)) {
      if (field.orderable && !field.scan) for (const direction of ['asc', 'desc'] as const) orders.push([`order ${name} ${direction}`, [{ field: name, direction }]]);
    }
    for (const [what, orderBy] of orders) {
      const plan = planList(declaration, { orderBy, first: 100 }, 1000);
      expectIndexed(await scansOf(plan.page, declaration.table), what);
      const { rows } = await pool.query<Record<string, unknown>>(plan.page.text, plan.page.values);
      expect(rows.length).toBe(101);
      const cursor = cursorOf(declaration, plan.order, rows[100]!);
      expectIndexed(await scansOf(planList(declaration, { orderBy, first: 100, after: cursor }, 1000).page, declaration.table), `${what} after a cursor`);
      expectIndexed(await scansOf(planList(declaration, { orderBy, last: 100, before: cursor }, 1000).page, declaration.table), `${what} before a cursor`);
    }
  });
});

describe.each(LIST_DECLARATIONS.map(({ declaration }) => [declaration.type, declaration] as const))('the %s list’s comparisons no index serves, on 100,000 rows', (_type, declaration) => {
  const fields = Object.entries(declaration.fields);

  it('plans a startsWith of 1 or 2 characters (no trigram) with the lower-case pattern index of the field', async () => {
    for (const [name, field] of fields.filter(([, candidate]) => candidate.kind === 'text')) {
      const long = (await whereFor(declaration, name, field, 'startsWith'))[name] as { startsWith: string };
      for (const length of [1, 2]) {
        const plan = planList(declaration, { where: { [name]: { startsWith: long.startsWith.slice(0, length) } }, first: 100 }, 1000);
        expectIndexed(await scansOf(plan.page, declaration.table), `${name} startsWith ${length} characters`);
        expect(narrowsByIndex(declaration, { [name]: { startsWith: 'a' } })).toBe(true);
      }
      // Every seeded name starts alike (the order's index reads those best): a prefix few names have is the pattern index's.
      const rare = planList(declaration, { where: { [name]: { startsWith: 'Zq' } }, first: 100 }, 1000);
      expect({ name, indexes: (await scansOf(rare.page, declaration.table)).indexes }).toEqual({ name, indexes: expect.arrayContaining([expect.stringMatching(/_lower_idx$/)]) });
      // A contains of 1 or 2 characters has no trigram either, and no prefix: priced as a scan.
      expect({ name, contains2: narrowsByIndex(declaration, { [name]: { contains: 'ab' } }), contains3: narrowsByIndex(declaration, { [name]: { contains: 'abc' } }) }).toEqual({
        name,
        contains2: false,
        contains3: true,
      });
    }
  });

  it('prices neq, nin, isNull: false and every comparison of a field computed per row as a scan, and each indexed operator as indexed', () => {
    for (const [name, field] of fields) {
      for (const operator of scanOperatorsOf(field.kind)) {
        const operand = operator === 'nin' ? ['x'] : operator === 'isNull' ? false : 'x';
        expect({ name, operator, indexed: narrowsByIndex(declaration, { [name]: { [operator]: operand } }) }).toEqual({ name, operator, indexed: false });
      }
      for (const operator of operatorsOf(field.kind)) {
        const operand = operator === 'in' ? ['x'] : operator === 'contains' ? 'xyz' : 'x';
        expect({ name, operator, indexed: narrowsByIndex(declaration, { [name]: { [operator]: operand } }) }).toEqual({ name, operator, indexed: !field.scan });
      }
    }
  });

  it('refuses to count by a field computed per row (a scan) on a large table, as by a where made only of _not', async () => {
    for (const [name, field] of fields.filter(([, candidate]) => candidate.scan)) {
      const where: ListWhere = { [name]: field.kind === 'set' ? { eq: Object.values(field.enumValues ?? { x: 'x' })[0] } : { gt: 0 } };
      const { refusal } = await countPlan(declaration, planList(declaration, { where, first: 1 }, 1000).count, 'totalCount');
      expect({ name, code: (refusal as GatewayError | undefined)?.code }).toEqual({ name, code: declaration.invalidInputCode });
    }
  });
});

// The count and group statements (totalCount, groupBy) on the same 100,000 rows: each table is large
// (LARGE_TABLE_ROWS), so the gateway plans them with sequential scans off before running them, and
// refuses one the planner can still answer only by reading the table whole.
const pgRun =
  (client: pg.PoolClient): RunSql =>
  async (text, values) =>
    (await client.query<Record<string, unknown>>(text, [...values])).rows;

/** checkCountIndexed in a transaction of its own, as the gateway runs it; the plan's scans of the table, or the refusal. */
async function countPlan(declaration: ListDeclaration, statement: CountSql, what: string): Promise<{ scans: { types: string[]; indexes: string[] }; refusal?: unknown }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const run = pgRun(client);
    try {
      await checkCountIndexed(run, declaration, statement, what, ROWS);
    } catch (error) {
      return { scans: { types: [], indexes: [] }, refusal: error };
    }
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
    const scans = nodesOf(rows[0]!['QUERY PLAN'][0].Plan).filter((node) => node['Relation Name'] === declaration.table);
    return { scans: { types: scans.map((node) => node['Node Type']), indexes: scans.map((node) => node['Index Name'] ?? '') } };
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

describe.each(LIST_DECLARATIONS.map(({ declaration }) => [declaration.type, declaration] as const))('the %s list’s totalCount and groupBy on 100,000 rows', (_type, declaration) => {
  it('is a large table, whose counts are planned before they run', async () => {
    expect(ROWS).toBeGreaterThanOrEqual(LARGE_TABLE_ROWS);
    const { rows } = await pool.query<{ rows: number }>('SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = to_regclass($1)', [`"${declaration.table}"`]);
    expect(rows[0]!.rows).toBeGreaterThanOrEqual(LARGE_TABLE_ROWS);
  });

  it('counts with no filter and with every filter, each operator, from an index', async () => {
    const cases: [string, ListWhere | undefined][] = [['no filter', undefined]];
    for (const [name, field] of Object.entries(declaration.fields).filter(([, candidate]) => !candidate.scan)) {
      for (const operator of operatorsOf(field.kind)) cases.push([`${name} ${operator}`, await whereFor(declaration, name, field, operator)]);
    }
    for (const [what, where] of cases) {
      const planned = await countPlan(declaration, planList(declaration, { where, first: 1 }, 1000).count, 'totalCount');
      expect({ refusal: planned.refusal }).toEqual({ refusal: undefined });
      expectIndexed(planned.scans, `totalCount, ${what}`);
    }
  });

  it('counts by every groupable field, with no filter and with one, from an index', async () => {
    const [timeName, timeField] = Object.entries(declaration.fields).find(([, field]) => field.kind === 'time')!;
    const filter = await whereFor(declaration, timeName, timeField, 'gte');
    for (const [name, field] of Object.entries(declaration.fields)) {
      if (!field.groupable) continue;
      for (const where of [undefined, filter]) {
        const planned = await countPlan(declaration, planList(declaration, { where, first: 1 }, 1000).group(name), `groupBy(field: ${name})`);
        expect({ refusal: planned.refusal }).toEqual({ refusal: undefined });
        expectIndexed(planned.scans, `groupBy ${name}${where ? ` where ${timeName} gte` : ''}`);
      }
    }
  });

  it('keeps the comparisons of a nullable field indexable under _not: a double _not is planned, and counted, through the field’s index', async () => {
    for (const [name, field] of Object.entries(declaration.fields)) {
      if (!field.nullable) continue;
      const where: ListWhere = { _not: { _not: await whereFor(declaration, name, field, 'eq') } };
      const plan = planList(declaration, { where, first: 100 }, 1000);
      expect(plan.page.text).toMatch(/IS NOT NULL AND/);
      expectIndexed(await scansOf(plan.page, declaration.table), `${name} under two _not`);
      const planned = await countPlan(declaration, plan.count, 'totalCount');
      expect({ name, refusal: planned.refusal }).toEqual({ name, refusal: undefined });
      expectIndexed(planned.scans, `totalCount, ${name} under two _not`);
    }
  });

  it('refuses to count by a where no index serves (only _not), naming what to do, with the list’s code', async () => {
    // `NOT (a < b)` is planned as `a >= b`, which an index serves; `NOT (a = b)` is `a <> b`, which none does.
    const [name, field] = Object.entries(declaration.fields).find(([, candidate]) => candidate.kind === 'key' || candidate.kind === 'enum')!;
    const where: ListWhere = { _not: await whereFor(declaration, name, field, 'eq') };
    if (declaration.large) {
      // A large list (the audit trail) refuses such a where before any statement is planned.
      expect(() => planList(declaration, { where, first: 1 }, 1000)).toThrow(expect.objectContaining({ code: declaration.invalidInputCode, message: expect.stringMatching(/not only _not/) }));
      return;
    }
    const plan = planList(declaration, { where, first: 1 }, 1000);
    for (const [statement, what] of [
      [plan.count, 'totalCount'],
      [plan.group(Object.keys(declaration.fields).find((candidate) => declaration.fields[candidate]!.groupable)!), 'groupBy(field: x)'],
    ] as const) {
      const { refusal } = await countPlan(declaration, statement, what);
      expect(refusal).toBeInstanceOf(GatewayError);
      expect({ code: (refusal as GatewayError).code, message: (refusal as GatewayError).message }).toEqual({
        code: declaration.invalidInputCode,
        message: expect.stringMatching(new RegExp(`^${what.replace(/[()]/g, '\\$&')}: no index can count ${declaration.plural} by this where, and reading all 100000 of them is refused`)),
      });
    }
  });
});

describe('the look every template create and rename takes first, on 100,000 templates', () => {
  it('finds a taken id or a name in another case through indexes, not by reading every template', async () => {
    const statement = { text: CLASH_SQL, values: ['template_50000', 'TEMPLATE 50000', null] };
    expectIndexed(await scansOf(statement, 'query_templates'), 'the clash of an id or a name');
    // The name through its lower-case index: a trigram index would match every name sharing its letters.
    const { rows: plans } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
    const indexes = nodesOf(plans[0]!['QUERY PLAN'][0].Plan).map((node) => node['Index Name']);
    expect(indexes).toEqual(expect.arrayContaining(['query_templates_pkey', 'query_templates_template_name_lower_idx']));
    const { rows } = await pool.query<{ templateId: string }>(statement.text, statement.values);
    expect(rows.map((row) => row.templateId)).toEqual(['tpl_50000']);
  });
});

describe('a list read on 100,000 rows, as the gateway reads it (Prisma)', () => {
  let prisma: PrismaClient;
  beforeAll(() => {
    prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
  });

  it("reads a page's rows as plain SQL with the values Prisma's raw query gave: int8 as BigInt, a date at UTC midnight", async () => {
    const text =
      "SELECT 9007199254740993::int8 AS big, '{1,NULL,3}'::int8[] AS bigs, '2026-03-04'::date AS day, now()::timestamptz(3) AS at, '{\"a\":1}'::jsonb AS doc, '{x,y}'::text[] AS tags, 1.5::float8 AS ratio";
    const [plain] = await runSql<Record<string, unknown>>(pool, text, [], PRISMA_RAW_TYPES);
    const [raw] = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(text);
    expect({ ...plain, at: typeof plain!.at }).toEqual({ ...raw, at: typeof raw!.at });
    expect(plain).toMatchObject({ big: 9007199254740993n, bigs: [1n, null, 3n], day: new Date('2026-03-04T00:00:00Z') });
  });

  it('answers totalCount and groupBy of an indexed where as SQL counts them, and refuses those of a where no index serves', async () => {
    const where: ListWhere = { createdBy: { in: ['user7', 'user8'] } };
    const page = await readList({ prisma, storePool: pool }, templateList, { where, first: 1 }, 1000, (row: Record<string, unknown>) => row);
    const { rows } = await pool.query<{ key: string; count: number }>(
      "SELECT query_type AS key, count(*)::int AS count FROM query_templates WHERE created_by IN ('user7', 'user8') GROUP BY 1 ORDER BY 2 DESC, 1",
    );
    expect({ total: await page.countAll(), groups: await page.groupBy('QUERY_TYPE') }).toEqual({
      total: rows.reduce((sum, row) => sum + row.count, 0),
      groups: rows.map((row) => ({ key: row.key.toUpperCase(), keys: [row.key.toUpperCase()], count: row.count })),
    });
    const unindexed = await readList({ prisma, storePool: pool }, templateList, { where: { _not: { createdBy: { eq: 'user7' } } }, first: 1 }, 1000, (row: Record<string, unknown>) => row);
    await expect(unindexed.countAll()).rejects.toMatchObject({ code: 'QUERY_TEMPLATE_INVALID_INPUT', message: expect.stringMatching(/^totalCount: no index can count query templates/) });
    await expect(unindexed.groupBy('QUERY_TYPE')).rejects.toMatchObject({ code: 'QUERY_TEMPLATE_INVALID_INPUT', message: expect.stringMatching(/^groupBy\(field: QUERY_TYPE\): no index/) });
  });

  it('plans a count once and then runs it alone, as one statement, while a where no index serves is planned and refused every time', async () => {
    // The statements the gateway's client sends, read from the pool it uses.
    const watched = new pg.Pool({ connectionString: database.url, max: 2 });
    const sent: string[] = [];
    watched.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const [first] = args;
        sent.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
        return query(...args);
      };
    });
    const client = new PrismaClient({ adapter: new PrismaPg(watched) });
    try {
      const countOf = async (where: ListWhere) => {
        const from = sent.length;
        const page = await readList({ prisma: client, storePool: watched }, templateList, { where, first: 0 }, 1000, (row: Record<string, unknown>) => row);
        const pageStatements = sent.length - from;
        const total = await page.countAll().catch((error: unknown) => error);
        return { total, countStatements: sent.slice(from + pageStatements).filter((text) => !/^(BEGIN|COMMIT|ROLLBACK)/i.test(text)) };
      };
      const indexed: ListWhere = { createdBy: { in: ['user9'] } };
      const { rows } = await pool.query<{ count: number }>("SELECT count(*)::int AS count FROM query_templates WHERE created_by = 'user9'");
      const first = await countOf(indexed);
      expect({ total: first.total, planned: first.countStatements.some((text) => text.startsWith('EXPLAIN')) }).toEqual({ total: rows[0]!.count, planned: true });
      const again = await countOf(indexed);
      expect({ total: again.total, statements: again.countStatements }).toEqual({ total: rows[0]!.count, statements: [expect.stringMatching(/^SELECT count\(\*\)/)] });
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const refused = await countOf({ _not: { createdBy: { eq: 'user9' } } });
        expect(refused.total).toMatchObject({ code: 'QUERY_TEMPLATE_INVALID_INPUT', message: expect.stringMatching(/^totalCount: no index can count query templates/) });
        expect(refused.countStatements.some((text) => text.startsWith('EXPLAIN'))).toBe(true);
      }
    } finally {
      await client.$disconnect();
      await watched.end();
    }
  });
});

/** Each plan's page, count and groupBy statements for `parents`, bound as the gateway binds them: every scan of `table` indexed; unfiltered, through `linkIndex`. */
async function expectNestedIndexed(link: ListLink, plans: readonly ReturnType<typeof planList>[], group: string, parents: readonly string[], table: string, linkIndex: string): Promise<void> {
  for (const [index, plan] of plans.entries()) {
    for (const [what, statement] of [
      ['page', plan.page],
      ['count', plan.count],
      ['groupBy', plan.group(group)],
    ] as const) {
      const bound = perParent(link, statement, parents, 'item');
      expectIndexed(await scansOf(bound, table), `plan ${index} ${what}`);
      if (index > 0) continue;
      const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${bound.text}`, bound.values);
      expect({ what, indexes: nodesOf(rows[0]!['QUERY PLAN'][0].Plan).map((node) => node['Index Name']) }).toEqual({ what, indexes: expect.arrayContaining([linkIndex]) });
    }
  }
}

describe('a nested list on 100,000 rows', () => {
  it('reads each parent’s page, count and groups of AlertRule.notificationPage through the rule index', async () => {
    const { rows } = await pool.query<{ id: string }>("SELECT id::text AS id FROM alert_rules WHERE name IN ('Notified rule 1', 'Notified rule 2', 'Notified rule 3')");
    expect(rows).toHaveLength(3);
    const plans = [planNested(notificationList, notificationRuleLink, { first: 10 }, 1000), planNested(notificationList, notificationRuleLink, { where: { kind: { eq: 'firing' } }, last: 10 }, 1000)];
    await expectNestedIndexed(
      notificationRuleLink,
      plans,
      'OUTCOME',
      rows.map((row) => row.id),
      'alert_notifications',
      'alert_notifications_rule_id_created_date_idx',
    );
  });

  it('reads each parent’s page, count and groups of Dataset.templatePage through the index of the names a query holds', async () => {
    await pool.query(`UPDATE query_templates SET query = 'SELECT * FROM "ds_' || (abs(hashtext(template_id)) % 500) || '" WHERE {{STARTDATE}}' WHERE template_name LIKE 'Template 12%'`);
    await pool.query('ANALYZE query_templates');
    const plans = [planNested(templateList, templateDatasetLink, { first: 10 }, 1000), planNested(templateList, templateDatasetLink, { where: { queryType: { eq: 'json' } }, last: 10 }, 1000)];
    await expectNestedIndexed(templateDatasetLink, plans, 'QUERY_TYPE', ['ds_1', 'ds_2', 'ds_3'], 'query_templates', 'query_templates_query_names_idx');
  });

  it('reads each parent’s page, count and groups of Dataset.alertRulePage through the dataset index', async () => {
    await pool.query(`UPDATE alert_rules SET labels = jsonb_build_object('dataset', 'ds_' || (abs(hashtext(id::text)) % 500)) WHERE name LIKE 'Rule 12%'`);
    await pool.query('ANALYZE alert_rules');
    const parents = ['ds_1', 'ds_2', 'ds_3'];
    const plans = [
      planList(alertRuleList, { first: 10 }, 1000, linkScope(ruleDatasetLink)),
      planList(alertRuleList, { where: { severity: { eq: 'CRITICAL' } }, last: 10 }, 1000, linkScope(ruleDatasetLink)),
    ];
    for (const [index, plan] of plans.entries()) {
      for (const [what, statement] of [
        ['page', plan.page],
        ['count', plan.count],
        ['groupBy', plan.group('STATUS')],
      ] as const) {
        const bound = perParent(ruleDatasetLink, statement, parents, 'item');
        expectIndexed(await scansOf(bound, 'alert_rules'), `plan ${index} ${what}`);
        if (index > 0) continue;
        // Unfiltered, the link's own index finds each parent's rules (named on the scan node, or on the
        // Bitmap Index Scan under a Bitmap Heap Scan). With a filter the planner may prefer the filter's index.
        const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${bound.text}`, bound.values);
        expect(nodesOf(rows[0]!['QUERY PLAN'][0].Plan).map((node) => node['Index Name'])).toContain('alert_rules_dataset_idx');
      }
    }
  });
});
