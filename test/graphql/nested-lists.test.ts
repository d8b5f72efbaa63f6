// Lists under each item of a list, by the list contract (docs/graphql.md "Lists"): `Dataset.alertRulePage`
// takes the rule list's `where`, `orderBy`, `first/after/last/before`, and answers `totalCount` and
// `groupBy` per dataset, batched (100 datasets cost the statements of 10); so do `AlertRule.notificationPage`
// and `Dataset.templatePage`. Also: the older whole-list
// `datasources`/`datasourceSizes` are refused, naming the paged form, beyond the dataset list's maximum.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { graphql, type GraphQLResponse } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

const BASE = Date.parse('2026-05-01T00:00:00.000Z');
const minutes = (n: number) => new Date(BASE + n * 60_000).toISOString();
const datasetId = (n: number) => `nl-${String(n).padStart(3, '0')}`;
const FOCUS = datasetId(100);

interface Rule {
  name: string;
  status: 'DRAFT' | 'LIVE' | 'RETIRED';
  severity: 'WARNING' | 'CRITICAL';
  category: string;
  alertType: string;
  createdAt: string;
  updatedAt: string;
  labels: Record<string, string>;
  context: Record<string, unknown>;
}

/** The focus dataset's 12 rules; every two share a creation time, so the rule id breaks ties. */
const FOCUS_RULES: Rule[] = Array.from({ length: 12 }, (_, index) => {
  const j = index + 1;
  return {
    name: `Focus Rule ${String(j).padStart(2, '0')}`,
    status: (['DRAFT', 'LIVE', 'RETIRED'] as const)[j % 3]!,
    severity: j % 3 === 0 ? 'CRITICAL' : 'WARNING',
    category: `cat${j % 2}`,
    alertType: j % 2 === 0 ? 'CUSTOM' : 'SYSTEM',
    createdAt: minutes(Math.floor(j / 2)),
    updatedAt: minutes(40 - j),
    // Half name the dataset by label, half in their context, as the platform writes them.
    labels: Object.fromEntries(j % 2 === 0 ? [['dataset', FOCUS]] : []),
    context: { alertType: j % 2 === 0 ? 'CUSTOM' : 'SYSTEM', ...(j % 2 === 0 ? {} : { datasetId: FOCUS }) },
  };
});

/** Dataset n (1..99) has n % 4 rules. */
const otherRules = (n: number): Rule[] =>
  Array.from({ length: n % 4 }, (_, j) => ({
    name: `nl-rule-${n}-${j}`,
    status: j === 0 ? 'LIVE' : 'DRAFT',
    severity: j % 2 === 0 ? 'WARNING' : 'CRITICAL',
    category: 'nl',
    alertType: 'SYSTEM',
    createdAt: minutes(100 + j),
    updatedAt: minutes(100 + j),
    labels: Object.fromEntries(n % 2 === 1 ? [['dataset', datasetId(n)]] : []),
    context: n % 2 === 0 ? { datasetId: datasetId(n) } : {},
  }));

async function insertRules(rules: readonly Rule[]): Promise<string[]> {
  const ids: string[] = [];
  for (const rule of rules) {
    const { rows } = await gw.sql<{ id: string }>(
      `INSERT INTO alert_rules (id, name, manager, status, metric, operator, thresholds, expression, severity, category, evaluation_interval_ms, pending_for_ms, labels, context, created_by, updated_by, created_date, updated_date)
       VALUES (gen_random_uuid(), $1, 'embedded', $2, 'up', 'gt', '{1}', '(up) > 1', $3, $4, 60000, 0, $5, $6, 'u', 'u', $7, $8) RETURNING id::text AS id`,
      [rule.name, rule.status.toLowerCase(), rule.severity.toLowerCase(), rule.category, rule.labels, rule.context, rule.createdAt, rule.updatedAt],
    );
    ids.push(rows[0]!.id);
  }
  return ids;
}

let focus: (Rule & { alertRuleId: string })[] = [];

beforeAll(async () => {
  // The dataset list's maximum is 100: 101 Live datasets are more than one whole list answers.
  gw = await startTestGateway({ DATASET_LIST_MAX: '100' });
  await gw.sql(`
    INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version, version_key, api_version, data_schema,
                          dataset_config, transformations_config, connectors_config, denorm_config, denorm_sources, created_by, updated_by, updated_date)
    SELECT 'nl-' || lpad(e::text, 3, '0'), 'live', 'nested ' || e, 'event', 'Live', '{}', 1, '1', 'v2', '{"type":"object","properties":{"a":{"type":"string"}}}',
           '{"keys_config":{"timestamp_key":"ts"},"indexing_config":{}}', '[]', '[]', '{"denorm_fields":[]}', '{}', 'SYSTEM', 'SYSTEM', now() - e * interval '1 second'
    FROM generate_series(1, 101) e`);
  const ids = await insertRules(FOCUS_RULES);
  focus = FOCUS_RULES.map((rule, index) => ({ ...rule, alertRuleId: ids[index]! }));
  for (let n = 1; n < 100; n += 1) await insertRules(otherRules(n));
  // An empty label does not name a dataset (its context does); a label wins over a context.
  await insertRules([
    { ...otherRules(3)[0]!, name: 'nl-empty-label', labels: { dataset: '' }, context: { datasetId: datasetId(3) } },
    { ...otherRules(3)[0]!, name: 'nl-label-wins', labels: { dataset: datasetId(5) }, context: { datasetId: datasetId(3) } },
  ]);
}, 120_000);
afterAll(async () => {
  await gw?.stop();
});

interface Page {
  edges: { cursor: string; node: { alertRuleId: string; name: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

const FOCUS_PAGE = `query Focus($id: ID!, $where: AlertRuleWhere, $orderBy: [AlertRuleOrder!], $first: Int, $after: String, $last: Int, $before: String) {
  dataset(id: $id) {
    alertRulePage(where: $where, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
      edges { cursor node { alertRuleId name } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      totalCount
    }
  }
}`;

async function focusPage(variables: Record<string, unknown>): Promise<Page> {
  const response = await graphql<{ dataset: { alertRulePage: Page } }>(gw, FOCUS_PAGE, { id: FOCUS, ...variables });
  expect(response.errors).toBeUndefined();
  return response.data!.dataset.alertRulePage;
}

const names = (page: Page) => page.edges.map((edge) => edge.node.name);
const byCreatedDesc = (rules: readonly (Rule & { alertRuleId: string })[]) =>
  [...rules].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.alertRuleId.localeCompare(b.alertRuleId)).map((rule) => rule.name);

function refusal(response: GraphQLResponse): { code: unknown; message: string } {
  const error = response.errors?.[0];
  return { code: error?.extensions?.code, message: String(error?.message) };
}

describe('Dataset.alertRulePage', () => {
  it('holds the same rules as Dataset.alertRules, for every dataset of a list', async () => {
    const response = await graphql(gw, '{ datasets(first: 100, where: { name: { startsWith: "nested " } }) { nodes { datasetId alertRules { name } alertRulePage { nodes { name } totalCount } } } }');
    expect(response.errors).toBeUndefined();
    const nodes = response.data!.datasets.nodes as { datasetId: string; alertRules: { name: string }[]; alertRulePage: { nodes: { name: string }[]; totalCount: number } }[];
    expect(nodes).toHaveLength(100);
    for (const node of nodes)
      expect({ id: node.datasetId, page: node.alertRulePage.nodes, count: node.alertRulePage.totalCount }).toEqual({ id: node.datasetId, page: node.alertRules, count: node.alertRules.length });
    const named = (id: string) => nodes.find((node) => node.datasetId === id)!.alertRulePage.nodes.map((rule) => rule.name);
    expect(named(datasetId(3))).toEqual(expect.arrayContaining(['nl-empty-label']));
    expect(named(datasetId(3))).not.toContain('nl-label-wins');
    expect(named(datasetId(5))).toContain('nl-label-wins');
  });

  const rule = (j: number) => focus[j - 1]!;
  const cases: [string, () => Record<string, unknown>, (r: Rule & { alertRuleId: string }) => boolean][] = [
    ['alertRuleId eq', () => ({ alertRuleId: { eq: rule(3).alertRuleId } }), (r) => r === rule(3)],
    ['alertRuleId in', () => ({ alertRuleId: { in: [rule(1).alertRuleId, rule(2).alertRuleId, 'not-a-uuid'] } }), (r) => r === rule(1) || r === rule(2)],
    ['name eq', () => ({ name: { eq: 'Focus Rule 04' } }), (r) => r.name === 'Focus Rule 04'],
    ['name in', () => ({ name: { in: ['Focus Rule 04', 'Focus Rule 05'] } }), (r) => ['Focus Rule 04', 'Focus Rule 05'].includes(r.name)],
    ['name contains, ignoring case', () => ({ name: { contains: 'RULE 1' } }), (r) => r.name.includes('Rule 1')],
    ['name startsWith', () => ({ name: { startsWith: 'focus rule 0' } }), (r) => r.name.startsWith('Focus Rule 0')],
    ['status eq', () => ({ status: { eq: 'LIVE' } }), (r) => r.status === 'LIVE'],
    ['status in', () => ({ status: { in: ['LIVE', 'RETIRED'] } }), (r) => r.status !== 'DRAFT'],
    ['severity eq', () => ({ severity: { eq: 'CRITICAL' } }), (r) => r.severity === 'CRITICAL'],
    ['severity in', () => ({ severity: { in: ['WARNING'] } }), (r) => r.severity === 'WARNING'],
    ['category eq', () => ({ category: { eq: 'cat1' } }), (r) => r.category === 'cat1'],
    ['category in', () => ({ category: { in: ['cat0', 'cat9'] } }), (r) => r.category === 'cat0'],
    ['manager eq', () => ({ manager: { eq: 'EMBEDDED' } }), () => true],
    ['manager in', () => ({ manager: { in: ['GRAFANA'] } }), () => false],
    ['alertType eq', () => ({ alertType: { eq: 'CUSTOM' } }), (r) => r.alertType === 'CUSTOM'],
    ['alertType in', () => ({ alertType: { in: ['SYSTEM'] } }), (r) => r.alertType === 'SYSTEM'],
    ['createdAt eq', () => ({ createdAt: { eq: minutes(3) } }), (r) => r.createdAt === minutes(3)],
    ['createdAt gt', () => ({ createdAt: { gt: minutes(3) } }), (r) => r.createdAt > minutes(3)],
    ['createdAt gte', () => ({ createdAt: { gte: minutes(3) } }), (r) => r.createdAt >= minutes(3)],
    ['createdAt lt', () => ({ createdAt: { lt: minutes(3) } }), (r) => r.createdAt < minutes(3)],
    ['createdAt lte', () => ({ createdAt: { lte: minutes(3) } }), (r) => r.createdAt <= minutes(3)],
    ['updatedAt between', () => ({ updatedAt: { gt: minutes(30), lte: minutes(35) } }), (r) => r.updatedAt > minutes(30) && r.updatedAt <= minutes(35)],
    ['_or', () => ({ _or: [{ severity: { eq: 'CRITICAL' } }, { category: { eq: 'cat0' } }] }), (r) => r.severity === 'CRITICAL' || r.category === 'cat0'],
    ['_not', () => ({ _not: { status: { eq: 'DRAFT' } } }), (r) => r.status !== 'DRAFT'],
    ['_and of _not and a time', () => ({ _and: [{ _not: { alertType: { eq: 'CUSTOM' } } }, { createdAt: { lt: minutes(5) } }] }), (r) => r.alertType !== 'CUSTOM' && r.createdAt < minutes(5)],
  ];

  it.each(cases)('where %s: the dataset’s rules and totalCount are those the filter selects', async (_name, where, selects) => {
    const page = await focusPage({ where: where(), first: 100 });
    const expected = byCreatedDesc(focus.filter(selects));
    expect({ names: names(page), totalCount: page.totalCount }).toEqual({ names: expected, totalCount: expected.length });
  });

  const orders: [string, 'ASC' | 'DESC', (r: Rule) => string][] = [
    ['NAME', 'ASC', (r) => r.name],
    ['NAME', 'DESC', (r) => r.name],
    ['CREATED_AT', 'ASC', (r) => r.createdAt],
    ['CREATED_AT', 'DESC', (r) => r.createdAt],
    ['UPDATED_AT', 'ASC', (r) => r.updatedAt],
    ['UPDATED_AT', 'DESC', (r) => r.updatedAt],
  ];

  it.each(orders)('orderBy %s %s, the rule id breaking ties', async (field, direction, key) => {
    const page = await focusPage({ orderBy: [{ field, direction }], first: 100 });
    const sign = direction === 'ASC' ? 1 : -1;
    expect(names(page)).toEqual([...focus].sort((a, b) => sign * key(a).localeCompare(key(b)) || a.alertRuleId.localeCompare(b.alertRuleId)).map((r) => r.name));
  });

  it('pages forward with after while rules are added before the cursor and removed on both sides', async () => {
    const all = byCreatedDesc(focus);
    let page = await focusPage({ first: 5 });
    const seen = [...names(page)];
    // Newest first: a new rule sorts before every cursor (not read); one read and one ahead go away.
    const [added] = await insertRules([{ ...FOCUS_RULES[0]!, name: 'Focus Rule new', createdAt: minutes(500) }]);
    const [read, ahead] = [all[1]!, all[8]!];
    await gw.sql('DELETE FROM alert_rules WHERE name IN ($1, $2)', [read, ahead]);
    while (page.pageInfo.hasNextPage) {
      page = await focusPage({ first: 5, after: page.pageInfo.endCursor });
      expect(page.pageInfo.hasPreviousPage).toBe(true);
      seen.push(...names(page));
    }
    expect(seen).toEqual(all.filter((name) => name !== ahead));
    await gw.sql('DELETE FROM alert_rules WHERE id = $1', [added]);
    focus = focus.filter((r) => r.name !== read && r.name !== ahead);
  });

  it('pages backward with last and before while rules are added ahead of the cursor and removed', async () => {
    const all = byCreatedDesc(focus);
    let page = await focusPage({ last: 5 });
    expect({ names: names(page), hasPreviousPage: page.pageInfo.hasPreviousPage, hasNextPage: page.pageInfo.hasNextPage }).toEqual({ names: all.slice(-5), hasPreviousPage: true, hasNextPage: false });
    const seen = [...names(page)];
    // Reading towards the newest: a rule newer than all lands ahead (read last); one read rule and one ahead go away.
    const [added] = await insertRules([{ ...FOCUS_RULES[0]!, name: 'Focus Rule newest', createdAt: minutes(600) }]);
    const [read, ahead] = [seen[0]!, all[2]!];
    await gw.sql('DELETE FROM alert_rules WHERE name IN ($1, $2)', [read, ahead]);
    while (page.pageInfo.hasPreviousPage) {
      page = await focusPage({ last: 5, before: page.pageInfo.startCursor });
      expect(page.pageInfo.hasNextPage).toBe(true);
      seen.unshift(...names(page));
    }
    expect(seen).toEqual(['Focus Rule newest', ...all.filter((name) => name !== ahead)]);
    await gw.sql('DELETE FROM alert_rules WHERE id = $1', [added]);
    focus = focus.filter((r) => r.name !== read && r.name !== ahead);
  });

  it('counts each dataset’s filtered rules by a field, as SQL counts them', async () => {
    const response = await graphql(
      gw,
      `
        {
          datasets(first: 100, where: { name: { startsWith: "nested " } }) {
            nodes {
              datasetId
              alertRulePage(where: { status: { in: [LIVE, DRAFT] } }) {
                totalCount
                groupBy(field: SEVERITY) {
                  key
                  count
                }
              }
            }
          }
        }
      `,
    );
    expect(response.errors).toBeUndefined();
    const { rows } = await gw.sql<{ dataset: string; key: string; count: number }>(
      `SELECT COALESCE(NULLIF(labels->>'dataset', ''), context->>'datasetId') AS dataset, upper(severity) AS key, count(*)::int AS count
         FROM alert_rules WHERE status IN ('live', 'draft') GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2`,
    );
    const nodes = response.data!.datasets.nodes as { datasetId: string; alertRulePage: { totalCount: number; groupBy: { key: string; count: number }[] } }[];
    for (const node of nodes) {
      const groups = rows.filter((row) => row.dataset === node.datasetId).map(({ key, count }) => ({ key, count }));
      expect({ id: node.datasetId, ...node.alertRulePage }).toEqual({ id: node.datasetId, totalCount: groups.reduce((sum, group) => sum + group.count, 0), groupBy: groups });
    }
    expect(rows.length).toBeGreaterThan(50);
  });

  it('costs the same statements for 100 datasets as for 10: one for the pages, one per count, one per groupBy field', async () => {
    const query = `query($first: Int!) { datasets(first: $first, where: { name: { startsWith: "nested " } }) { nodes { datasetId
      alertRulePage(first: 2, orderBy: [{ field: NAME, direction: ASC }]) { totalCount groupBy(field: STATUS) { key count } nodes { alertRuleId name } pageInfo { hasNextPage endCursor } }
      critical: alertRulePage(where: { severity: { eq: CRITICAL } }) { totalCount nodes { name } } } } }`;
    const counts: number[] = [];
    for (const first of [10, 100]) {
      const before = gw.gateway.database.statementCount();
      const response = await graphql(gw, query, { first });
      expect(response.errors).toBeUndefined();
      expect(response.data!.datasets.nodes).toHaveLength(first);
      counts.push(gw.gateway.database.statementCount() - before);
    }
    // The dataset page, the two nested pages (two sets of arguments), their two counts, one groupBy: 6
    // (a quiet run counts exactly that; the sampler or the rule evaluator may add a statement of their own).
    // One statement per dataset would be over 100.
    expect(Math.max(counts[0]!, counts[1]!)).toBeLessThanOrEqual(8);
    expect(Math.min(counts[0]!, counts[1]!)).toBeGreaterThanOrEqual(6);
  });

  it('refuses bad arguments with a 400-class error and the rule list’s code', async () => {
    for (const where of [{ colour: { eq: 'red' } }, { createdAt: { contains: 'x' } }]) {
      const response = await graphql(gw, FOCUS_PAGE, { id: FOCUS, where });
      expect({ status: response.status, code: response.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'BAD_USER_INPUT' });
    }
    const templates = await graphql<{ templates: Page }>(gw, '{ templates(first: 1) { pageInfo { endCursor } } }');
    const foreign =
      templates.data?.templates.pageInfo.endCursor ??
      Buffer.from(JSON.stringify(['k1', 'QueryTemplate', 'created_date.desc,template_id.asc', ['2026-01-01T00:00:00.000Z', 'x']])).toString('base64url');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ first: 2, last: 2 }, /first and last: give one of them/],
      [{ first: 1001 }, /page size must be an integer from 0 to 1000/],
      [{ after: 'not a cursor' }, /is not a cursor of this list \(malformed\)/],
      [{ after: foreign }, /made by a list of QueryTemplate/],
      [{ where: { name: { startsWith: '' } } }, /where\.name\.startsWith: give at least 1 character/],
    ];
    for (const [variables, message] of cases) {
      const response = await graphql(gw, FOCUS_PAGE, { id: FOCUS, ...variables });
      expect({ status: response.status, ...refusal(response) }).toEqual({ status: 200, code: 'ALERT_RULE_INVALID_INPUT', message: expect.stringMatching(message) });
    }
    const huge = await graphql(gw, FOCUS_PAGE, { id: FOCUS, first: 100_000 });
    expect({ status: huge.status, code: huge.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'GRAPHQL_VALIDATION_FAILED' });
  });
});

describe('AlertRule.notificationPage and Dataset.templatePage', () => {
  beforeAll(async () => {
    // Dataset d (1..40) is named by d % 4 templates; each dataset's first one names the next dataset too.
    await gw.sql(`
      INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by, created_date, updated_date)
      SELECT 'nl_tpl_' || d || '_' || k, 'Nested Template ' || d || ' ' || k,
             'SELECT * FROM "nl-' || lpad(d::text, 3, '0') || '" WHERE {{STARTDATE}}' || CASE WHEN k = 0 THEN ' UNION SELECT * FROM "nl-' || lpad((d + 1)::text, 3, '0') || '"' ELSE '' END,
             'sql', 'u', 'u', now() - (d * 10 + k) * interval '1 minute', now()
        FROM generate_series(1, 40) d, generate_series(0, 2) k WHERE k < d % 4`);
    // Five notifications for each rule of the other datasets (none pending: no delivery picks them up meanwhile).
    await gw.sql(`
      INSERT INTO alert_notifications (id, rule_id, channel_id, kind, evaluated_at, outcome, subject, text, transport, attempts, created_date)
      SELECT gen_random_uuid(), r.id, gen_random_uuid(), (ARRAY['firing','repeat','resolved'])[1 + k % 3], now() - k * interval '1 minute',
             (ARRAY['sent','failed','silenced'])[1 + k % 3], 's', 't', CASE WHEN k % 3 = 0 THEN 'smtp' END, 1, now() - (k / 2) * interval '1 minute'
        FROM alert_rules r, generate_series(0, 4) k WHERE r.name LIKE 'nl-rule-%'`);
  });

  it('hold the same items as the deprecated AlertRule.notifications and Dataset.templates, for every parent of a list', async () => {
    const response = await graphql(
      gw,
      `
        {
          alertRules(first: 200, where: { name: { startsWith: "nl-rule-" } }) {
            nodes {
              alertRuleId
              notifications(last: 10) {
                notificationId
              }
              notificationPage(first: 10) {
                totalCount
                nodes {
                  notificationId
                }
              }
            }
          }
          datasets(first: 100, where: { name: { startsWith: "nested " } }) {
            nodes {
              datasetId
              templates {
                templateId
              }
              templatePage(first: 10) {
                totalCount
                nodes {
                  templateId
                }
              }
            }
          }
        }
      `,
    );
    expect(response.errors).toBeUndefined();
    type Rule = { alertRuleId: string; notifications: { notificationId: string }[]; notificationPage: { totalCount: number; nodes: { notificationId: string }[] } };
    type Dataset = { datasetId: string; templates: { templateId: string }[]; templatePage: { totalCount: number; nodes: { templateId: string }[] } };
    const rules = response.data!.alertRules.nodes as Rule[];
    const datasets = response.data!.datasets.nodes as Dataset[];
    for (const rule of rules) {
      expect({ id: rule.alertRuleId, ids: rule.notificationPage.nodes, totalCount: rule.notificationPage.totalCount }).toEqual({
        id: rule.alertRuleId,
        ids: rule.notifications,
        totalCount: rule.notifications.length,
      });
    }
    for (const dataset of datasets) {
      expect({ id: dataset.datasetId, ids: dataset.templatePage.nodes, totalCount: dataset.templatePage.totalCount }).toEqual({
        id: dataset.datasetId,
        ids: dataset.templates,
        totalCount: dataset.templates.length,
      });
    }
    const { rows } = await gw.sql<{ notifications: number }>("SELECT count(*)::int AS notifications FROM alert_notifications n JOIN alert_rules r ON r.id = n.rule_id WHERE r.name LIKE 'nl-rule-%'");
    expect(rules.reduce((sum, rule) => sum + rule.notificationPage.totalCount, 0)).toBe(rows[0]!.notifications);
    expect(rows[0]!.notifications).toBeGreaterThan(100);
    // As seeded: dataset d's own d % 4 templates (d up to 40), and the first of d - 1's, which names d too.
    const own = (d: number) => (d >= 1 && d <= 40 ? d % 4 : 0);
    const naming = (d: number) => own(d) + (own(d - 1) > 0 ? 1 : 0);
    expect(datasets.map((dataset) => [dataset.datasetId, dataset.templatePage.totalCount])).toEqual(datasets.map((dataset) => [dataset.datasetId, naming(Number(dataset.datasetId.slice(3)))]));
    expect(datasets.filter((dataset) => dataset.templatePage.totalCount > 0).length).toBeGreaterThan(30);
  });

  it('cost the same statements for 100 parents as for 10: one for the pages, one per count, one per groupBy field', async () => {
    const query = `query($first: Int!) {
      alertRules(first: $first, where: { name: { startsWith: "nl-rule-" } }) { nodes { notificationPage(first: 2, where: { outcome: { in: [SENT, FAILED] } }) { totalCount groupBy(field: KIND) { key count } nodes { notificationId } } } }
      datasets(first: $first, where: { name: { startsWith: "nested " } }) { nodes { templatePage(first: 2) { totalCount nodes { templateId } } } } }`;
    // The fewest of two runs per size: a background job (the sampler, the evaluator) may add a statement to one.
    const counts: number[] = [];
    for (const first of [10, 100]) {
      let fewest = Infinity;
      for (let run = 0; run < 2; run += 1) {
        const before = gw.gateway.database.statementCount();
        const response = await graphql(gw, query, { first });
        expect(response.errors).toBeUndefined();
        expect(response.data!.datasets.nodes).toHaveLength(first);
        fewest = Math.min(fewest, gw.gateway.database.statementCount() - before);
      }
      counts.push(fewest);
    }
    // The two root pages, the rules' evaluations and silences, the notification pages, their counts
    // and groups, the template pages and their counts: 9. One statement per parent would be over 100.
    for (const count of counts) expect(count).toBeGreaterThanOrEqual(9);
    for (const count of counts) expect(count).toBeLessThanOrEqual(10);
  });

  it('show a change to a linked template or rule on the next read of a kept dataset page', async () => {
    const query =
      '{ datasets(first: 10, where: { name: { startsWith: "nested " } }, orderBy: [{ field: NAME, direction: ASC }]) { nodes { datasetId templatePage { nodes { name } } alertRulePage { nodes { name } } } } }';
    const names = async () => {
      const response = await graphql<{ datasets: { nodes: { templatePage: { nodes: { name: string }[] }; alertRulePage: { nodes: { name: string }[] } }[] } }>(gw, query);
      expect(response.errors).toBeUndefined();
      const nodes = response.data!.datasets.nodes;
      return { templates: nodes.flatMap((node) => node.templatePage.nodes.map((item) => item.name)), rules: nodes.flatMap((node) => node.alertRulePage.nodes.map((item) => item.name)) };
    };
    const before = await names();
    // Kept: a later read runs no statement (an answer is kept once no change is on its way).
    let executed = Infinity;
    for (let attempt = 0; attempt < 5 && executed > 0; attempt += 1) {
      const start = gw.gateway.database.statementCount();
      expect(await names()).toEqual(before);
      executed = gw.gateway.database.statementCount() - start;
    }
    expect(executed).toBe(0);
    const template = await graphql(gw, 'mutation { updateTemplate(id: "nl_tpl_1_0", input: { name: "Renamed Nested Template" }) { template { templateId } } }');
    expect(template.errors).toBeUndefined();
    expect((await names()).templates).toContain('Renamed Nested Template');
    const { rows } = await gw.sql<{ id: string }>("SELECT id::text AS id FROM alert_rules WHERE name = 'nl-rule-1-0'");
    const rule = await graphql(gw, 'mutation($id: ID!) { updateAlertRule(id: $id, input: { name: "nl-rule-1-0 renamed" }) { alertRule { alertRuleId } } }', { id: rows[0]!.id });
    expect(rule.errors).toBeUndefined();
    expect((await names()).rules).toContain('nl-rule-1-0 renamed');
    expect(before.rules).toContain('nl-rule-1-0');
  });
});

describe('the whole-list datasources fields', () => {
  it('refuse, naming the paged form, when there are more Live datasets than the list maximum; the paged forms answer', async () => {
    for (const field of ['datasources { datasetId }', 'datasourceSizes { name }']) {
      const response = await graphql(gw, `{ ${field} }`);
      expect(refusal(response)).toEqual({ code: 'DATASOURCE_LIST_INPUT_INVALID', message: expect.stringMatching(/more than 100 Live datasets.*datasourcePage or datasourceSizePage/) });
    }
    const paged = await graphql(gw, '{ datasourcePage(first: 5) { totalCount } datasourceSizePage(first: 5) { totalCount } }');
    expect(paged.errors).toBeUndefined();
    const { rows } = await gw.sql<{ count: number }>("SELECT count(*)::int AS count FROM datasets WHERE stage = 'live' AND status = 'Live'");
    expect(paged.data).toEqual({ datasourcePage: { totalCount: rows[0]!.count }, datasourceSizePage: { totalCount: rows[0]!.count } });
    expect(rows[0]!.count).toBe(101);
  });
});
