// GraphQL queries that read only published records are answered from memory after the first time,
// never older than the records' last committed change, and never to a caller who may not read them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { graphql } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import supertest from 'supertest';

let gw: TestGateway;
let secured: TestGateway;

beforeAll(async () => {
  [gw, secured] = await Promise.all([startTestGateway(), startTestGateway(JWT_ENV)]);
  await seedDataset(gw, 'kept-1', 'Live');
  const admin = `Bearer ${await token({ roles: ['admin'] })}`;
  await seedDataset({ ...secured, http: supertest.agent(secured.url).set('authorization', admin) }, 'kept-secure', 'Live');
});
afterAll(async () => {
  await Promise.all([gw?.stop(), secured?.stop()]);
});

async function statements(target: TestGateway, work: () => Promise<unknown>): Promise<number> {
  const before = target.gateway.database.statementCount();
  await work();
  return target.gateway.database.statementCount() - before;
}

const LIST = '{ datasets(first: 50) { totalCount nodes { id name status } } }';

describe('published query answers', () => {
  it('answers the same list a second time without a statement, and shows a change at once', async () => {
    const first = await graphql(gw, LIST);
    expect(first.data?.datasets.totalCount).toBe(1);
    expect(await statements(gw, async () => expect((await graphql(gw, LIST)).data).toEqual(first.data))).toBe(0);
    await seedDataset(gw, 'kept-2', 'Live');
    expect((await graphql(gw, LIST)).data?.datasets.totalCount).toBe(2);
  });

  it("never keeps an answer that reads something else (a dataset's metrics)", async () => {
    const query = '{ dataset(id: "kept-1") { id metrics(categories: [DATA_VOLUME]) { category } } }';
    await graphql(gw, query);
    expect(await statements(gw, () => graphql(gw, query))).toBeGreaterThan(0);
  });

  it('still refuses a caller without the right to a kept answer', async () => {
    const query = '{ dataset(id: "kept-secure") { id name } }';
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
});
