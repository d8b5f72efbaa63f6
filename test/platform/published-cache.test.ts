// Published records (datasets, templates, connectors) are served from memory once read, and never
// older than their last committed change beyond the announcement's delay: a change made through
// one gateway is seen through a second gateway on the same database within a second; a write
// through a gateway is seen by its own next read at once. A cached read costs no SQL statement, a
// list at most two whatever its page size, and GET answers carry an ETag of the record itself.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope, graphql, SQL_QUERY } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startCopy, startTestGateway, type TestGateway } from '../support/gateway.js';
import { PublishedCache } from '../../src/platform/cache/published-cache.js';
import { type Gateway } from '../../src/server.js';
import supertest from 'supertest';

let gw: TestGateway;
let second: Gateway;
let secondHttp: ReturnType<typeof supertest>;

beforeAll(async () => {
  gw = await startTestGateway();
  // A second gateway on the same database, as behind a load balancer.
  second = await startCopy(gw);
  secondHttp = supertest(second.url);
  for (let i = 0; i < 12; i += 1) await seedDataset(gw, `cache-live-${i}`, 'Live');
});
afterAll(async () => {
  await second?.stop();
  await gw?.stop();
});

async function statements(work: () => Promise<unknown>): Promise<number> {
  const before = gw.gateway.database.statementCount();
  await work();
  return gw.gateway.database.statementCount() - before;
}

const readDataset = (http: ReturnType<typeof supertest>, id: string) => http.get(`/v2/datasets/read/${id}`);
const listDatasets = (limit: number) => gw.http.post('/v2/datasets/list').send(envelope('api.datasets.list', { filters: { status: 'Live' }, limit }));

describe('SQL statements of published reads', () => {
  it('reads a Live dataset a second time, over REST and GraphQL, without a statement', async () => {
    expect((await readDataset(gw.http, 'cache-live-0')).status).toBe(200);
    expect(await statements(async () => expect((await readDataset(gw.http, 'cache-live-0')).status).toBe(200))).toBe(0);
    const query = '{ dataset(id: "cache-live-1") { id: datasetId name status } }';
    await graphql(gw, query);
    expect(await statements(async () => expect((await graphql(gw, query)).data?.dataset).toMatchObject({ id: 'cache-live-1', status: 'LIVE' }))).toBe(0);
  });

  it('lists with at most two statements whatever the page size, and none when the same page is asked again', async () => {
    const small = await statements(async () => expect((await listDatasets(3)).body.result.data).toHaveLength(3));
    const large = await statements(async () => expect((await listDatasets(12)).body.result.data).toHaveLength(12));
    expect(small).toBeLessThanOrEqual(2);
    expect(large).toBeLessThanOrEqual(2);
    expect(await statements(async () => expect((await listDatasets(12)).body.result.count).toBe(12))).toBe(0);
  });
});

describe('freshness', () => {
  it("shows a gateway's own write to its next read at once", async () => {
    const created = await gw.http.post('/v2/template/create').send(envelope('api.query.template.create', { template_name: 'Cache Own', query_type: 'sql', query: SQL_QUERY }));
    expect(created.status).toBe(200);
    expect((await gw.http.get('/v2/template/read/cache_own')).body.result.query).toBe(SQL_QUERY);
    const changed = SQL_QUERY.replace('LIMIT', 'ORDER BY __time LIMIT');
    const updated = await gw.http.patch('/v2/template/update/cache_own').send(envelope('api.query.template.update', { query_type: 'sql', query: changed }));
    expect({ status: updated.status, error: updated.body.error }).toEqual({ status: 200, error: undefined });
    expect((await gw.http.get('/v2/template/read/cache_own')).body.result.query).toBe(changed);
  });

  it('shows a change made through one gateway to a second gateway on the same database within a second', async () => {
    const before = await readDataset(secondHttp, 'cache-live-2');
    expect(before.body.result.status).toBe('Live');
    await readDataset(secondHttp, 'cache-live-2'); // now cached there
    const retired = await gw.http.post('/v2/datasets/status-transition').send(envelope('api.datasets.status-transition', { dataset_id: 'cache-live-2', status: 'Retired' }));
    expect(retired.status).toBe(200);
    const deadline = Date.now() + 1_000;
    let status: unknown;
    do {
      status = (await readDataset(secondHttp, 'cache-live-2')).body.result?.status;
    } while (status !== 'Retired' && Date.now() < deadline);
    expect(status).toBe('Retired');
  });

  it('drops a record changed behind the gateways’ backs (plain SQL) as soon as the database announces it', async () => {
    await readDataset(secondHttp, 'cache-live-3');
    await gw.sql(`UPDATE datasets SET name = 'Renamed in SQL' WHERE dataset_id = 'cache-live-3'`);
    await second.database.changes.sync();
    expect((await readDataset(secondHttp, 'cache-live-3')).body.result.name).toBe('Renamed in SQL');
  });
});

describe('HTTP validators', () => {
  it('gives a read the same ETag while the record is unchanged, 304 for If-None-Match, and a new one after a change', async () => {
    const first = await gw.http.get('/v2/template/read/cache_own');
    const again = await gw.http.get('/v2/template/read/cache_own');
    expect(first.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.body.params.resmsgid).not.toBe(first.body.params.resmsgid); // the envelope still changes
    const revalidated = await gw.http.get('/v2/template/read/cache_own').set('if-none-match', first.headers.etag!);
    expect(revalidated.status).toBe(304);
    expect(revalidated.text ?? '').toBe('');
    await gw.http.patch('/v2/template/update/cache_own').send(envelope('api.query.template.update', { query_type: 'sql', query: SQL_QUERY.replace('LIMIT', 'ORDER BY __time DESC LIMIT') }));
    const after = await gw.http.get('/v2/template/read/cache_own').set('if-none-match', first.headers.etag!);
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(first.headers.etag);
  });
});

describe('one cache for records and answers', () => {
  // Records and whole answers share one cache: each entry says once what it is made of, and the
  // database's announcements drop exactly what a change makes stale.
  const renameInSql = async (id: string, name: string) => {
    await gw.sql(`UPDATE datasets SET name = $1 WHERE dataset_id = $2`, [name, id]);
    await gw.gateway.database.changes.sync();
  };

  it('drops the changed record and every answer made of its table, and keeps the other records', async () => {
    const cache = new PublishedCache(gw.gateway.database.changes);
    const records = cache.records<{ name: string }>('datasets', 10);
    const answers = cache.part<string>('answers', 10);
    const templateAnswers = cache.part<string>('template answers', 10);
    records.lookup(['cache-live-5', 'cache-live-6']).store(
      new Map([
        ['cache-live-5', { name: 'five' }],
        ['cache-live-6', { name: 'six' }],
      ]),
    );
    answers.keep('list', '[5,6]', { tables: ['datasets'] }, answers.since(['datasets']));
    templateAnswers.keep('templates', '[]', { tables: ['query_templates'] }, templateAnswers.since(['query_templates']));
    expect(records.lookup(['cache-live-5', 'cache-live-6']).missing).toEqual([]);

    await renameInSql('cache-live-5', 'Renamed once');
    expect(records.lookup(['cache-live-5', 'cache-live-6']).missing).toEqual(['cache-live-5']);
    expect(answers.get('list')).toBeUndefined();
    expect(templateAnswers.get('templates')).toBe('[]');
  });

  it('does not keep what was read while a change to what it is made of was announced', async () => {
    const cache = new PublishedCache(gw.gateway.database.changes);
    const answers = cache.part<string>('answers', 10);
    const readingDatasets = answers.since(['datasets']);
    const readingTemplates = answers.since(['query_templates']);
    await renameInSql('cache-live-7', 'Renamed meanwhile');
    answers.keep('datasets', 'stale', { tables: ['datasets'] }, readingDatasets);
    answers.keep('templates', 'fresh', { tables: ['query_templates'] }, readingTemplates);
    expect(answers.get('datasets')).toBeUndefined();
    expect(answers.get('templates')).toBe('fresh');
  });

  it('keeps a read of one record when only another record changed while it ran, not when that record or the whole table did', async () => {
    const cache = new PublishedCache(gw.gateway.database.changes);
    const answers = cache.part<string>('answers', 10);
    const madeOf = (record: string) => ({ tables: ['datasets'], record });
    const readingSeven = answers.since(['datasets']);
    const readingEight = answers.since(['datasets']);
    await renameInSql('cache-live-7', 'Renamed while eight was read');
    answers.keep('seven', 'stale', madeOf('cache-live-7'), readingSeven);
    answers.keep('eight', 'fresh', madeOf('cache-live-8'), readingEight);
    expect(answers.get('seven')).toBeUndefined();
    expect(answers.get('eight')).toBe('fresh');
    // A change to every record (TRUNCATE announces "datasets:*") keeps no read begun before it.
    const readingNine = answers.since(['datasets']);
    cache.announce({ table: 'datasets', key: '*' });
    answers.keep('nine', 'stale', madeOf('cache-live-9'), readingNine);
    expect(answers.get('nine')).toBeUndefined();
  });
});
