// GraphQL queries that read only published records are answered from memory after the first time,
// never older than the records' last committed change, and never to a caller who may not read them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { graphql } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset } from '../support/datasets.js';
import { seedTemplate } from '../support/templates.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import supertest from 'supertest';

let gw: TestGateway;
let secured: TestGateway;
/** Callers with role dataset_manager may run only the operations of the allow list. */
let bound: TestGateway;

beforeAll(async () => {
  [gw, secured, bound] = await Promise.all([startTestGateway(), startTestGateway(JWT_ENV), startTestGateway({ ...JWT_ENV, PERSISTED_OPERATIONS_REQUIRED_FOR: 'role:dataset_manager' })]);
  await seedDataset(gw, 'kept-1', 'Live');
  const admin = `Bearer ${await token({ roles: ['admin'] })}`;
  await seedDataset({ ...secured, http: supertest.agent(secured.url).set('authorization', admin) }, 'kept-secure', 'Live');
});
afterAll(async () => {
  await Promise.all([gw?.stop(), secured?.stop(), bound?.stop()]);
});

/** A counter of the gateway's request metrics for one GraphQL operation label (0 before its first request). */
async function requestsCounted(target: TestGateway, operation: string): Promise<number> {
  const text = (await target.http.get('/metrics')).text;
  const line = text.split('\n').find((each) => each.startsWith('gateway_http_requests_total{') && each.includes(`operation="${operation}"`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

async function statements(target: TestGateway, work: () => Promise<unknown>): Promise<number> {
  const before = target.gateway.database.statementCount();
  await work();
  return target.gateway.database.statementCount() - before;
}

/**
 * The fewest statements `work` takes over up to 5 tries: an answer is kept only once no change is on
 * its way (a late announcement of the seeding keeps nothing read meanwhile), so the first try may execute.
 */
async function statementsOnceKept(target: TestGateway, work: () => Promise<unknown>): Promise<number> {
  let executed = Infinity;
  for (let attempt = 0; attempt < 5 && executed > 0; attempt += 1) executed = await statements(target, work);
  return executed;
}

const LIST = '{ datasets(first: 50) { totalCount nodes { id: datasetId name status } } }';

describe('published query answers', () => {
  it('answers the same list a second time without a statement, and shows a change at once', async () => {
    const first = await graphql(gw, LIST);
    expect(first.data?.datasets.totalCount).toBe(1);
    expect(await statementsOnceKept(gw, async () => expect((await graphql(gw, LIST)).data).toEqual(first.data))).toBe(0);
    await seedDataset(gw, 'kept-2', 'Live');
    expect((await graphql(gw, LIST)).data?.datasets.totalCount).toBe(2);
  });

  it("never keeps an answer that reads something else (a dataset's metrics)", async () => {
    const query = '{ dataset(id: "kept-1") { id: datasetId metrics(categories: [DATA_VOLUME]) { category } } }';
    await graphql(gw, query);
    expect(await statements(gw, () => graphql(gw, query))).toBeGreaterThan(0);
  });

  it("shows a template linked to a kept dataset's answer at once (its answer is made of templates too)", async () => {
    const query = '{ dataset(id: "kept-1") { id: datasetId templates { templateId } } }';
    expect((await graphql(gw, query)).data?.dataset.templates).toEqual([]);
    expect(await statementsOnceKept(gw, () => graphql(gw, query))).toBe(0);
    const templateId = await seedTemplate(gw, 'kept link', 'sql', 'SELECT COUNT(*) FROM {{DATASET}} JOIN "kept-1" USING (id) WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}}');
    expect((await graphql(gw, query)).data?.dataset.templates).toEqual([{ templateId }]);
  });

  it("keeps an answer that reads a dataset's alert rules until one changes, and its health or counters (for GRAPHQL_FIGURES_MAX_AGE_MS at most: test/graphql/dashboard-page.test.ts)", async () => {
    const rule = await graphql(
      gw,
      `
        mutation {
          createAlertRule(input: { name: "kept-rule", category: "kept", metric: "up", operator: GT, thresholds: [1], labels: { dataset: "kept-1" } }) {
            alertRule {
              alertRuleId
            }
          }
        }
      `,
    );
    expect(rule.errors).toBeUndefined();
    for (const links of ['alertRules { name }', 'health { status }', 'ingestion { received }']) {
      const query = `{ dataset(id: "kept-1") { id: datasetId ${links} } }`;
      expect((await graphql(gw, query)).errors).toBeUndefined();
      expect([links, await statementsOnceKept(gw, () => graphql(gw, query))]).toEqual([links, 0]);
    }
    const renamed = await graphql(gw, `mutation { updateAlertRule(id: "${rule.data?.createAlertRule.alertRule.alertRuleId as string}", input: { name: "kept-rule-renamed" }) { alertRule { name } } }`);
    expect(renamed.errors).toBeUndefined();
    expect((await graphql(gw, '{ dataset(id: "kept-1") { id: datasetId alertRules { name } } }')).data?.dataset.alertRules).toEqual([{ name: 'kept-rule-renamed' }]);
  });

  it('serves a kept answer with the same bytes and headers as the executed one, counted under its operation', async () => {
    const body = { query: 'query KeptRead($id: ID!) { dataset(id: $id) { id: datasetId name status } }', operationName: 'KeptRead', variables: { id: 'kept-1' } };
    const executed = await gw.http.post('/graphql').send(body);
    expect(executed.body.data.dataset).toEqual({ id: 'kept-1', name: expect.any(String), status: 'LIVE' });
    const counted = await requestsCounted(gw, 'KeptRead');
    let kept = executed;
    // The statement count is the pool's: a background job (sampler, evaluator) may run during one request.
    let sent = 0;
    let executedStatements = Infinity;
    for (; sent < 3 && executedStatements > 0; sent += 1) executedStatements = await statements(gw, async () => (kept = await gw.http.post('/graphql').send(body)));
    expect(executedStatements).toBe(0);
    expect(kept.text).toBe(executed.text);
    const sameHeaders = ['content-type', 'content-length', 'etag', 'cache-control', 'x-content-type-options', 'content-security-policy'];
    for (const header of sameHeaders) expect([header, kept.headers[header]]).toEqual([header, executed.headers[header]]);
    expect(kept.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(await requestsCounted(gw, 'KeptRead')).toBe(counted + sent);
  });

  it("answers a kept query in the media type the client's Accept header prefers", async () => {
    const query = '{ dataset(id: "kept-1") { id: datasetId version } }';
    await graphql(gw, query);
    const preferred = await gw.http.post('/graphql').set('accept', 'application/graphql-response+json, application/json;q=0.9').send({ query });
    expect(preferred.headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
    expect(JSON.parse(preferred.text)).toEqual({ data: { dataset: { id: 'kept-1', version: 1 } }, extensions: { cost: 3 } });
    const refused = await gw.http.post('/graphql').set('accept', 'text/html').send({ query });
    expect(refused.status).toBe(406);
  });

  it("leaves a kept query sent as a form (multipart) to Apollo's CSRF prevention", async () => {
    const query = '{ dataset(id: "kept-1") { id: datasetId name } }';
    expect((await graphql(gw, query)).data?.dataset.id).toBe('kept-1');
    const form = await gw.http.post('/graphql').field('operations', JSON.stringify({ query })).field('map', '{}');
    expect(form.status).toBe(400);
    expect(form.text).toMatch(/Cross-Site Request Forgery/);
  });

  it('never serves a kept answer of an unlisted operation to a caller bound to the allow list', async () => {
    const query = '{ dataset(id: "kept-bound") { id: datasetId name } }';
    const admin = `Bearer ${await token({ roles: ['admin'] })}`;
    await seedDataset({ ...bound, http: supertest.agent(bound.url).set('authorization', admin) }, 'kept-bound', 'Live');
    const byAdmin = await bound.http.post('/graphql').set('authorization', admin).send({ query });
    expect(byAdmin.body.data.dataset.id).toBe('kept-bound');
    const byBound = await bound.http
      .post('/graphql')
      .set('authorization', `Bearer ${await token({ roles: ['dataset_manager'] })}`)
      .send({ query });
    expect(byBound.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_OPERATION_REQUIRED');
    expect(byBound.body.data ?? null).toBeNull();
  });

  it('still refuses a caller without the right to a kept answer', async () => {
    const query = '{ dataset(id: "kept-secure") { id: datasetId name } }';
    const admin = await secured.http
      .post('/graphql')
      .set('authorization', `Bearer ${await token({ roles: ['admin'] })}`)
      .send({ query });
    expect(admin.body.data.dataset.id).toBe('kept-secure');
    const ingestor = await secured.http
      .post('/graphql')
      .set('authorization', `Bearer ${await token({ roles: ['ingestor'] })}`)
      .send({ query });
    expect(ingestor.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(ingestor.body.data?.dataset ?? null).toBeNull();
    const anonymous = await secured.http.post('/graphql').send({ query });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it("never serves a kept answer holding linked records (a dataset's templates) to a caller who may read the dataset but not templates", async () => {
    const query = '{ dataset(id: "kept-secure") { id: datasetId templates { templateId } } }';
    const admin = await secured.http
      .post('/graphql')
      .set('authorization', `Bearer ${await token({ roles: ['admin'] })}`)
      .send({ query });
    expect(admin.body.data.dataset).toEqual({ id: 'kept-secure', templates: [] });
    // viewer: datasets.read, but no query template permission (config/permissions.json).
    const viewer = await secured.http
      .post('/graphql')
      .set('authorization', `Bearer ${await token({ roles: ['viewer'] })}`)
      .send({ query });
    expect(viewer.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
