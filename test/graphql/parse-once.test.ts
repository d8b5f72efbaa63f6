// One request, one parse of its body and one look-up of its kept answer, whichever way it goes: the
// fast path reads a small JSON body ahead to look for a kept answer; when it does not serve it, it
// hands the parsed body and its look-up on, so express does not parse the body again and neither the
// keptAnswers middleware nor Apollo's plugin looks the answer up again. Counted by watching
// JSON.parse and the published cache's GraphQL-answers part while one gateway serves each request.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { CachePart } from '../../src/platform/cache/published-cache.js';
import { startGateway, type Gateway } from '../../src/server.js';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { seedTemplate } from '../support/templates.js';

let fast: TestGateway;
let normal: Gateway;
let admin: string;
const DATASET = 'parse_once_ds';

beforeAll(async () => {
  fast = await startTestGateway(JWT_ENV);
  normal = await startGateway(
    loadConfig({ ...JWT_ENV, DATABASE_URL: fast.databaseUrl, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'test', DB_POOL_MAX: '2', METRICS_SAMPLE_INTERVAL_SECONDS: '0', FAST_PATH: 'false' }),
    createLogger('silent'),
  );
  admin = `Bearer ${await token({ roles: ['admin'] })}`;
  const seeder = { ...fast, http: supertest.agent(fast.url).set('authorization', admin) };
  await seedDataset(seeder, DATASET, 'Live');
  await seedTemplate(seeder, 'Parse once template');
}, 90_000);

afterAll(async () => {
  await normal?.stop();
  await fast?.stop();
});

/** Sends one JSON POST /graphql and counts the parses of its exact body text and the look-ups of kept GraphQL answers meanwhile. */
async function counted(url: string, authorization: string, query: string, variables: Record<string, unknown> = {}) {
  const text = JSON.stringify({ query, variables });
  const parse = jest.spyOn(JSON, 'parse');
  const lookUp = jest.spyOn(CachePart.prototype, 'get');
  try {
    const response = await supertest(url).post('/graphql').set('authorization', authorization).set('content-type', 'application/json').send(text);
    return {
      body: response.body as { data?: Record<string, any>; errors?: { extensions?: { code?: string } }[] },
      served: response.headers['x-request-id'] !== undefined,
      parses: parse.mock.calls.filter(([argument]) => argument === text).length,
      lookUps: lookUp.mock.contexts.filter((part) => (part as CachePart<unknown>).name === 'GraphQL answers').length,
    };
  } finally {
    parse.mockRestore();
    lookUp.mockRestore();
  }
}

const READ = 'query($id: ID!) { dataset(id: $id) { datasetId name } }';

describe('a JSON POST /graphql is parsed once and its kept answer looked up once', () => {
  it('the first read (nothing kept yet): the fast path reads and parses it, express and Apollo take it as it is', async () => {
    const first = await counted(fast.url, admin, READ, { id: DATASET });
    expect(first.body.data?.dataset).toEqual({ datasetId: DATASET, name: expect.any(String) });
    expect({ parses: first.parses, lookUps: first.lookUps }).toEqual({ parses: 1, lookUps: 1 });
  });

  it('the next read, served kept by the fast path', async () => {
    await counted(fast.url, admin, READ, { id: DATASET });
    const kept = await counted(fast.url, admin, READ, { id: DATASET });
    expect(kept.body.data?.dataset).toEqual({ datasetId: DATASET, name: expect.any(String) });
    expect({ parses: kept.parses, lookUps: kept.lookUps }).toEqual({ parses: 1, lookUps: 1 });
  });

  it('a kept answer a caller may not have (a viewer asking for templates): refused by execution, after one parse and one look-up', async () => {
    const query = 'query($id: ID!) { dataset(id: $id) { datasetId templates { templateId } } }';
    await counted(fast.url, admin, query, { id: DATASET });
    await counted(fast.url, admin, query, { id: DATASET });
    const refused = await counted(fast.url, `Bearer ${await token({ roles: ['viewer'] })}`, query, { id: DATASET });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect({ parses: refused.parses, lookUps: refused.lookUps }).toEqual({ parses: 1, lookUps: 1 });
  });

  it('without the fast path: express parses it, and the kept answer is looked up once before Apollo', async () => {
    const query = 'query($id: ID!) { dataset(id: $id) { datasetId status } }';
    const first = await counted(normal.url, admin, query, { id: DATASET });
    expect(first.body.data?.dataset).toEqual({ datasetId: DATASET, status: 'LIVE' });
    expect({ parses: first.parses, lookUps: first.lookUps }).toEqual({ parses: 1, lookUps: 1 });
    const kept = await counted(normal.url, admin, query, { id: DATASET });
    expect(kept.body.data?.dataset).toEqual({ datasetId: DATASET, status: 'LIVE' });
    expect({ parses: kept.parses, lookUps: kept.lookUps }).toEqual({ parses: 1, lookUps: 1 });
  });

  it('a mutation is parsed once and looked up once (a miss: telling it from a query would mean parsing GraphQL ahead)', async () => {
    const mutation = await counted(fast.url, admin, 'mutation($id: ID!) { transitionDataset(id: $id, to: LIVE) { id } }', { id: 'parse_once_missing' });
    expect(mutation.body.errors?.[0]?.extensions?.code).toBe('DATASET_NOT_FOUND');
    expect({ parses: mutation.parses, lookUps: mutation.lookUps }).toEqual({ parses: 1, lookUps: 1 });
  });

  it('a REST list the fast path reads ahead is parsed once too, kept or not', async () => {
    const text = JSON.stringify({ id: 'api.datasets.list', ver: 'v2', ts: '2026-01-01T00:00:00Z', params: { msgid: 'parse-once' }, request: { filters: { status: ['Live'] } } });
    const parses = async () => {
      const parse = jest.spyOn(JSON, 'parse');
      try {
        const response = await supertest(fast.url).post('/v2/datasets/list').set('authorization', admin).set('content-type', 'application/json').send(text);
        expect(response.status).toBe(200);
        return parse.mock.calls.filter(([argument]) => argument === text).length;
      } finally {
        parse.mockRestore();
      }
    };
    expect(await parses()).toBe(1);
    expect(await parses()).toBe(1);
  });
});
