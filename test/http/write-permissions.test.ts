// A read permission never writes: `GET /v2/datasets/read/{id}?mode=edit` and `editDataset` make a
// draft from the Live version, so they need api.datasets.update, which a viewer lacks, over REST
// and GraphQL alike (each root field's API ids are declared beside its resolvers).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import supertest from 'supertest';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const LIVE = 'permissions-live';
let gw: TestGateway;
let bearer: (role: string) => Promise<string>;

async function drafts(): Promise<number> {
  const rows = await gw.sql<{ n: number }>(`SELECT count(*)::int AS n FROM datasets WHERE dataset_id = $1 AND status = 'Draft'`, [LIVE]);
  return rows.rows[0]!.n;
}

beforeAll(async () => {
  gw = await startTestGateway(JWT_ENV);
  bearer = async (role) => `Bearer ${await token({ roles: [role], sub: `${role}-1` })}`;
  const admin = await bearer('admin');
  await seedDataset({ ...gw, http: supertest.agent(gw.url).set('authorization', admin) }, LIVE, 'Live');
});
afterAll(async () => {
  await gw?.stop();
});

describe('making a draft from a Live dataset', () => {
  it('is refused to a viewer over REST (403), who still reads the Live version, and no draft appears', async () => {
    const viewer = await bearer('viewer');
    const edit = await gw.http.get(`/v2/datasets/read/${LIVE}?mode=edit`).set('authorization', viewer);
    expect({ status: edit.status, code: edit.body.error?.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(edit.body.error.message).toMatch(/api\.datasets\.update/);
    const read = await gw.http.get(`/v2/datasets/read/${LIVE}`).set('authorization', viewer);
    expect(read.status).toBe(200);
    expect(await drafts()).toBe(0);
  });

  it('is refused to a viewer over GraphQL (editDataset), and no draft appears', async () => {
    const viewer = await bearer('viewer');
    const response = await gw.http
      .post('/graphql')
      .set('authorization', viewer)
      .send({ query: 'mutation Edit($id: ID!) { editDataset(id: $id) { id } }', variables: { id: LIVE } });
    expect(response.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await drafts()).toBe(0);
  });

  it('is allowed to a dataset_creator, who gets the draft', async () => {
    const creator = await bearer('dataset_creator');
    const edit = await gw.http.get(`/v2/datasets/read/${LIVE}?mode=edit`).set('authorization', creator);
    expect(edit.status).toBe(200);
    expect(await drafts()).toBe(1);
  });
});
