// The audit trail under the list contract (docs/graphql.md "Lists"): `auditRecords` takes a typed `where`
// (every operator of every field, with _and/_or/_not), `orderBy` both ways, keyset cursors forward
// and backward while records arrive and go, `groupBy` against counts made in SQL, and refuses bad
// input with a 400-class error and its code. The trail is large by nature: a filter made only of
// `_not` is refused, as no index could find its records.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { auditCursor } from '../../src/modules/audit/index.js';
import { graphql, type GraphQLResponse } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

interface Seed {
  at: string;
  requestId: string;
  actor: string;
  transport: 'GRAPHQL' | 'REST';
  apiId: string | null;
  operation: string;
  targetId: string | null;
  outcome: 'SUCCESS' | 'FAILURE';
  errorCode: string | null;
}

interface Row extends Seed {
  auditRecordId: string;
}

const BASE = Date.parse('2026-04-01T00:00:00.000Z');
const minutes = (n: number) => new Date(BASE + n * 60_000).toISOString();
const OPERATIONS = ['createTemplate', 'deleteTemplate', 'transitionDataset'];

/** 18 records; every two share a time, so the record id breaks ties of `at`. */
const SEEDS: Seed[] = Array.from({ length: 18 }, (_, index) => {
  const n = index + 1;
  const rest = n % 3 === 0;
  const failed = n % 4 === 0;
  return {
    at: minutes(Math.floor(n / 2)),
    requestId: `al-req-${n}`,
    actor: n % 2 === 0 ? 'alice' : 'bob',
    transport: rest ? 'REST' : 'GRAPHQL',
    apiId: rest ? `api.case.${n % 2}` : null,
    operation: OPERATIONS[n % 3]!,
    targetId: n % 5 === 0 ? null : `al_target_${n % 4}`,
    outcome: failed ? 'FAILURE' : 'SUCCESS',
    errorCode: failed ? (n % 8 === 0 ? 'DATASET_NOT_FOUND' : 'QUERY_TEMPLATE_NOT_EXISTS') : null,
  };
});

async function insert(seeds: readonly Seed[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const seed of seeds) {
    const { rows: inserted } = await gw.sql<{ id: string }>(
      'INSERT INTO audit_records (at, request_id, actor, transport, api_id, operation, target_id, outcome, error_code) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id::text AS id',
      [seed.at, seed.requestId, seed.actor, seed.transport.toLowerCase(), seed.apiId, seed.operation, seed.targetId, seed.outcome.toLowerCase(), seed.errorCode],
    );
    rows.push({ ...seed, auditRecordId: inserted[0]!.id });
  }
  return rows;
}

let ROWS: Row[] = [];

beforeAll(async () => {
  gw = await startTestGateway();
  ROWS = await insert(SEEDS);
});
afterAll(async () => {
  await gw?.stop();
});

interface Page {
  edges: { cursor: string; node: Row }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

const AUDIT = `query Audit($where: AuditRecordWhere, $orderBy: [AuditRecordOrder!], $first: Int, $after: String, $last: Int, $before: String) {
  auditRecords(where: $where, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { auditRecordId at requestId actor transport apiId operation targetId outcome errorCode } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount
  }
}`;

/** Every page below is scoped to the seeded records (the gateway may write its own). */
const SEEDED = { requestId: { in: Array.from({ length: 40 }, (_, index) => `al-req-${index + 1}`) } };
const scoped = (where?: Record<string, unknown>) => (where ? { _and: [SEEDED, where] } : SEEDED);

async function audit(variables: Record<string, unknown>): Promise<Page> {
  const response = await graphql<{ auditRecords: Page }>(gw, AUDIT, variables);
  expect(response.errors).toBeUndefined();
  return response.data!.auditRecords;
}

const ids = (page: Page) => page.edges.map((edge) => edge.node.auditRecordId);
const newestFirst = (rows: readonly Row[]) => [...rows].sort((a, b) => Number(b.auditRecordId) - Number(a.auditRecordId)).map((row) => row.auditRecordId);

function refusal(response: GraphQLResponse): { code: unknown; responseCode: unknown; message: string } {
  expect(response.status).toBe(200);
  const error = response.errors?.[0];
  return { code: error?.extensions?.code, responseCode: error?.extensions?.responseCode, message: String(error?.message) };
}

describe('where', () => {
  const row = (n: number) => ROWS[n - 1]!;
  const cases: [string, () => Record<string, unknown>, (row: Row) => boolean][] = [
    ['auditRecordId eq', () => ({ auditRecordId: { eq: row(4).auditRecordId } }), (r) => r === row(4)],
    ['auditRecordId in', () => ({ auditRecordId: { in: [row(1).auditRecordId, row(9).auditRecordId, '0'] } }), (r) => r === row(1) || r === row(9)],
    ['auditRecordId eq a value no record id can be', () => ({ auditRecordId: { eq: 'not-a-number' } }), () => false],
    ['at eq', () => ({ at: { eq: minutes(3) } }), (r) => r.at === minutes(3)],
    ['at gt', () => ({ at: { gt: minutes(3) } }), (r) => r.at > minutes(3)],
    ['at gte', () => ({ at: { gte: minutes(3) } }), (r) => r.at >= minutes(3)],
    ['at lt', () => ({ at: { lt: minutes(3) } }), (r) => r.at < minutes(3)],
    ['at lte', () => ({ at: { lte: minutes(3) } }), (r) => r.at <= minutes(3)],
    ['at between (gte and lt together)', () => ({ at: { gte: minutes(2), lt: minutes(6) } }), (r) => r.at >= minutes(2) && r.at < minutes(6)],
    ['actor eq', () => ({ actor: { eq: 'alice' } }), (r) => r.actor === 'alice'],
    ['actor in', () => ({ actor: { in: ['alice', 'carol'] } }), (r) => r.actor === 'alice'],
    ['operation eq', () => ({ operation: { eq: 'deleteTemplate' } }), (r) => r.operation === 'deleteTemplate'],
    ['operation in', () => ({ operation: { in: ['deleteTemplate', 'transitionDataset'] } }), (r) => r.operation !== 'createTemplate'],
    ['apiId eq', () => ({ apiId: { eq: 'api.case.1' } }), (r) => r.apiId === 'api.case.1'],
    ['apiId in', () => ({ apiId: { in: ['api.case.0', 'api.case.1'] } }), (r) => r.apiId !== null],
    ['transport eq', () => ({ transport: { eq: 'REST' } }), (r) => r.transport === 'REST'],
    ['transport in', () => ({ transport: { in: ['GRAPHQL'] } }), (r) => r.transport === 'GRAPHQL'],
    ['targetId eq', () => ({ targetId: { eq: 'al_target_1' } }), (r) => r.targetId === 'al_target_1'],
    ['targetId in', () => ({ targetId: { in: ['al_target_1', 'al_target_2'] } }), (r) => r.targetId === 'al_target_1' || r.targetId === 'al_target_2'],
    ['outcome eq', () => ({ outcome: { eq: 'FAILURE' } }), (r) => r.outcome === 'FAILURE'],
    ['outcome in', () => ({ outcome: { in: ['SUCCESS', 'FAILURE'] } }), () => true],
    ['errorCode eq', () => ({ errorCode: { eq: 'DATASET_NOT_FOUND' } }), (r) => r.errorCode === 'DATASET_NOT_FOUND'],
    ['errorCode in', () => ({ errorCode: { in: ['DATASET_NOT_FOUND', 'QUERY_TEMPLATE_NOT_EXISTS'] } }), (r) => r.errorCode !== null],
    ['requestId eq', () => ({ requestId: { eq: 'al-req-7' } }), (r) => r.requestId === 'al-req-7'],
    ['requestId in nothing', () => ({ requestId: { in: [] } }), () => false],
    ['two fields (both must match)', () => ({ actor: { eq: 'bob' }, outcome: { eq: 'SUCCESS' } }), (r) => r.actor === 'bob' && r.outcome === 'SUCCESS'],
    ['_or', () => ({ _or: [{ transport: { eq: 'REST' } }, { outcome: { eq: 'FAILURE' } }] }), (r) => r.transport === 'REST' || r.outcome === 'FAILURE'],
    ['_not beside a field', () => ({ operation: { eq: 'createTemplate' }, _not: { actor: { eq: 'alice' } } }), (r) => r.operation === 'createTemplate' && r.actor !== 'alice'],
    [
      '_and of _or and _not',
      () => ({ _and: [{ _or: [{ actor: { eq: 'alice' } }, { transport: { eq: 'REST' } }] }, { _not: { outcome: { eq: 'FAILURE' } } }] }),
      (r) => (r.actor === 'alice' || r.transport === 'REST') && r.outcome !== 'FAILURE',
    ],
  ];

  it.each(cases)('%s: the records and totalCount are those the filter selects', async (_name, where, selects) => {
    const page = await audit({ where: scoped(where()), first: 100 });
    const expected = newestFirst(ROWS.filter(selects));
    expect({ ids: ids(page), totalCount: page.totalCount }).toEqual({ ids: expected, totalCount: expected.length });
  });

  it('answers each record as it was written', async () => {
    const page = await audit({ where: { requestId: { eq: 'al-req-12' } } });
    expect(page.edges.map((edge) => edge.node)).toEqual([ROWS[11]]);
  });

  it('keeps the deprecated filter argument, combined with where', async () => {
    const response = await graphql<{ auditRecords: Page }>(
      gw,
      `{ auditRecords(filter: { actor: "alice", since: "${minutes(2)}", until: "${minutes(7)}" }, where: { outcome: { eq: SUCCESS } }) { edges { node { auditRecordId } } totalCount } }`,
    );
    const expected = newestFirst(ROWS.filter((r) => r.actor === 'alice' && r.at >= minutes(2) && r.at < minutes(7) && r.outcome === 'SUCCESS'));
    expect({ ids: response.data?.auditRecords.edges.map((edge) => edge.node.auditRecordId), totalCount: response.data?.auditRecords.totalCount }).toEqual({
      ids: expected,
      totalCount: expected.length,
    });
    expect(expected.length).toBeGreaterThan(0);
  });

  it('refuses an unknown field, an operator the field does not take and a value outside its enum before any resolver runs', async () => {
    for (const where of [{ color: { eq: 'red' } }, { at: { in: [minutes(1)] } }, { actor: { contains: 'ali' } }, { outcome: { eq: 'MAYBE' } }]) {
      const response = await graphql(gw, AUDIT, { where });
      expect({ status: response.status, code: response.errors?.[0]?.extensions?.code, data: response.data }).toEqual({ status: 400, code: 'BAD_USER_INPUT', data: undefined });
    }
  });

  it('refuses a filter made only of _not, which no index could serve on the trail', async () => {
    expect(refusal(await graphql(gw, AUDIT, { where: { _not: { actor: { eq: 'alice' } } } }))).toEqual({
      code: 'INVALID_INPUT',
      responseCode: 'BAD_REQUEST',
      message: expect.stringMatching(/where: on audit records, a filter must also match some field/),
    });
  });
});

describe('orderBy', () => {
  const byId = (a: Row, b: Row) => Number(a.auditRecordId) - Number(b.auditRecordId);
  const cases: [string, 'ASC' | 'DESC', (a: Row, b: Row) => number][] = [
    ['AUDIT_RECORD_ID', 'ASC', byId],
    ['AUDIT_RECORD_ID', 'DESC', (a, b) => byId(b, a)],
    ['AT', 'ASC', (a, b) => a.at.localeCompare(b.at) || byId(a, b)],
    ['AT', 'DESC', (a, b) => b.at.localeCompare(a.at) || byId(a, b)],
  ];

  it.each(cases)('%s %s, the record id breaking ties', async (field, direction, compare) => {
    const page = await audit({ where: SEEDED, orderBy: [{ field, direction }], first: 100 });
    expect(ids(page)).toEqual([...ROWS].sort(compare).map((row) => row.auditRecordId));
  });
});

describe('cursors', () => {
  const extra = (n: number): Seed => ({ ...SEEDS[0]!, requestId: `al-req-${30 + n}`, at: minutes(50 + n) });

  it('pages forward (newest first) while records arrive before the cursor and go on both sides', async () => {
    const where = SEEDED;
    let page = await audit({ where, first: 4 });
    const seen = [...ids(page)];
    expect(page.pageInfo).toEqual(expect.objectContaining({ hasNextPage: true, hasPreviousPage: false }));
    // A new record is newer than every cursor (never read); one read and one ahead go away.
    const added = await insert([extra(1)]);
    const [read, ahead] = [ROWS[17]!, ROWS[3]!];
    expect(seen).toContain(read.auditRecordId);
    await gw.sql('DELETE FROM audit_records WHERE id IN ($1, $2)', [read.auditRecordId, ahead.auditRecordId]);
    while (page.pageInfo.hasNextPage) {
      page = await audit({ where, first: 4, after: page.pageInfo.endCursor });
      expect(page.pageInfo.hasPreviousPage).toBe(true);
      seen.push(...ids(page));
    }
    expect(seen).toEqual(newestFirst(ROWS).filter((id) => id !== ahead.auditRecordId));
    await gw.sql('DELETE FROM audit_records WHERE id = $1', [added[0]!.auditRecordId]);
    ROWS = ROWS.filter((row) => row !== read && row !== ahead);
  });

  it('pages backward with last and before (oldest records last) while records arrive ahead and go', async () => {
    const where = SEEDED;
    const all = newestFirst(ROWS);
    let page = await audit({ where, last: 4 });
    expect({ ids: ids(page), hasPreviousPage: page.pageInfo.hasPreviousPage, hasNextPage: page.pageInfo.hasNextPage }).toEqual({ ids: all.slice(-4), hasPreviousPage: true, hasNextPage: false });
    const seen = [...ids(page)];
    // Reading towards the newest: a record added now is the newest of all (read last); one record read and one ahead go away.
    const added = await insert([extra(2)]);
    const [read, ahead] = [ROWS.find((row) => row.auditRecordId === seen[0])!, ROWS.find((row) => row.auditRecordId === all[1])!];
    await gw.sql('DELETE FROM audit_records WHERE id IN ($1, $2)', [read.auditRecordId, ahead.auditRecordId]);
    while (page.pageInfo.hasPreviousPage) {
      page = await audit({ where, last: 4, before: page.pageInfo.startCursor });
      expect(page.pageInfo.hasNextPage).toBe(true);
      seen.unshift(...ids(page));
    }
    expect(seen).toEqual([added[0]!.auditRecordId, ...all.filter((id) => id !== ahead.auditRecordId)]);
    await gw.sql('DELETE FROM audit_records WHERE id = $1', [added[0]!.auditRecordId]);
    ROWS = ROWS.filter((row) => row !== read && row !== ahead);
  });

  it('still takes the older audit:<id> cursor as after, in the newest-first order', async () => {
    const all = newestFirst(ROWS);
    const page = await audit({ where: SEEDED, first: 3, after: auditCursor(all[1]!) });
    expect(ids(page)).toEqual(all.slice(2, 5));
  });

  it('refuses a malformed cursor, a cursor of another list or order, and first with last, with INVALID_INPUT', async () => {
    const templates = await graphql<{ templates: Page }>(gw, '{ templates(first: 1) { pageInfo { endCursor } } }');
    const foreign =
      templates.data?.templates.pageInfo.endCursor ??
      Buffer.from(JSON.stringify(['k1', 'QueryTemplate', 'created_date.desc,template_id.asc', ['2026-01-01T00:00:00.000Z', 'x']])).toString('base64url');
    const otherOrder = (await audit({ where: SEEDED, orderBy: [{ field: 'AT', direction: 'ASC' }], first: 1 })).pageInfo.endCursor;
    const forged = Buffer.from(JSON.stringify(['k1', 'AuditRecord', 'id.desc', ['1; DROP TABLE audit_records']])).toString('base64url');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ after: 'not a cursor' }, /after: .* is not a cursor of this list \(malformed\)/],
      [{ after: foreign }, /made by a list of QueryTemplate/],
      [{ after: otherOrder }, /made for another orderBy/],
      [{ last: 2, before: forged }, /before: .* is not a cursor of this list \(malformed\)/],
      [{ after: auditCursor('99999999999999999999') }, /not a cursor returned by auditRecords/],
      [{ first: 2, last: 2 }, /first and last: give one of them/],
      [{ first: 1001 }, /page size must be an integer from 0 to 1000/],
      [{ last: -1 }, /page size must be an integer from 0 to 1000/],
    ];
    for (const [variables, message] of cases) {
      expect(refusal(await graphql(gw, AUDIT, { where: SEEDED, ...variables }))).toEqual({ code: 'INVALID_INPUT', responseCode: 'BAD_REQUEST', message: expect.stringMatching(message) });
    }
  });

  it('refuses a page of 100,000 records before it runs, by what it would cost', async () => {
    for (const variables of [{ first: 100_000 }, { last: 100_000 }]) {
      const response = await graphql(gw, AUDIT, { where: SEEDED, ...variables });
      expect({ status: response.status, code: response.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'GRAPHQL_VALIDATION_FAILED' });
    }
  });
});

describe('groupBy', () => {
  it('counts the filtered records by each groupable field, as SQL counts them', async () => {
    const response = await graphql(
      gw,
      `
        query ($where: AuditRecordWhere) {
          auditRecords(where: $where) {
            totalCount
            byActor: groupBy(field: ACTOR) {
              key
              count
            }
            byOperation: groupBy(field: OPERATION) {
              key
              count
            }
            byApi: groupBy(field: API_ID) {
              key
              count
            }
            byTransport: groupBy(field: TRANSPORT) {
              key
              count
            }
            byOutcome: groupBy(field: OUTCOME) {
              key
              count
            }
            byError: groupBy(field: ERROR_CODE) {
              key
              count
            }
          }
        }
      `,
      { where: scoped({ at: { lt: minutes(8) } }) },
    );
    expect(response.errors).toBeUndefined();
    const count = async (column: string) =>
      (
        await gw.sql<{ key: string | null; count: number }>(
          `SELECT ${column} AS key, count(*)::int AS count FROM audit_records WHERE request_id LIKE 'al-req-%' AND at < $1 GROUP BY 1 ORDER BY 2 DESC, 1 ASC NULLS LAST`,
          [minutes(8)],
        )
      ).rows;
    const { rows: total } = await gw.sql<{ count: number }>("SELECT count(*)::int AS count FROM audit_records WHERE request_id LIKE 'al-req-%' AND at < $1", [minutes(8)]);
    expect(response.data?.auditRecords).toEqual({
      totalCount: total[0]!.count,
      byActor: await count('actor'),
      byOperation: await count('operation'),
      byApi: await count('api_id'),
      byTransport: await count('upper(transport)'),
      byOutcome: await count('upper(outcome)'),
      byError: await count('error_code'),
    });
    expect(total[0]!.count).toBeGreaterThan(5);
  });

  it('refuses a field the trail cannot be counted by', async () => {
    const response = await graphql(gw, '{ auditRecords(where: { actor: { eq: "alice" } }) { groupBy(field: TARGET_ID) { key count } } }');
    expect({ status: response.status, code: response.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'GRAPHQL_VALIDATION_FAILED' });
  });
});
