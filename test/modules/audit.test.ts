// The audit trail: every mutation writes one record (who, operation, API id, target, outcome),
// whichever transport carried it, and the trail is queryable in GraphQL (auditRecords).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope, graphql, SQL_QUERY, type GraphQLResponse } from '../support/api.js';
import { definition, seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { auditCursor } from '../../src/modules/audit/service.js';
import { auditedMutations, auditTarget, UNAUDITED_MUTATIONS, withAuditTrail } from '../../src/modules/audit/trail.js';
import { pgIdentifierName } from '../../src/platform/query-engine/names.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  await seedDataset(gw, 'audit-live', 'Live');
  await seedDataset(gw, 'audit-draft-rest', 'Draft');
  await seedDataset(gw, 'audit-draft-gql', 'Draft');
  await seedDataset(gw, 'audit-atomic-rest', 'Draft');
  await seedDataset(gw, 'audit-atomic-graphql', 'Draft');
  await seedDataset(gw, 'audit-retire-rest', 'Live');
  await seedDataset(gw, 'audit-retire-graphql', 'Live');
});
afterAll(async () => {
  await gw?.stop();
});

interface AuditRow {
  request_id: string;
  actor: string;
  transport: string;
  api_id: string | null;
  operation: string;
  target_id: string | null;
  outcome: string;
  error_code: string | null;
}

async function recordsOf(requestId: string): Promise<AuditRow[]> {
  const result = await gw.sql<AuditRow>('SELECT request_id, actor, transport, api_id, operation, target_id, outcome, error_code FROM audit_records WHERE request_id = $1', [requestId]);
  return result.rows;
}

function rest(requestId: string) {
  return {
    post: (path: string, body: unknown) =>
      gw.http
        .post(path)
        .set('x-request-id', requestId)
        .send(body as object),
    patch: (path: string, body: unknown) =>
      gw.http
        .patch(path)
        .set('x-request-id', requestId)
        .send(body as object),
    get: (path: string) => gw.http.get(path).set('x-request-id', requestId),
    delete: (path: string) => gw.http.delete(path).set('x-request-id', requestId),
  };
}

async function gql(requestId: string, query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse> {
  const response = await gw.http.post('/graphql').set('x-request-id', requestId).send({ query, variables });
  return { status: response.status, data: response.body.data, errors: response.body.errors };
}

interface Case {
  operation: string;
  target: string | null;
  rest?: { apiId: string; send: (id: string) => Promise<Response> };
  graphql: (id: string) => Promise<GraphQLResponse>;
}

const alias = (suffix: string) => ({ alias: `audit_alias_${suffix}`, component: 'audit', metric: 'up' });

// In order: later cases act on what earlier ones made.
const CASES: Case[] = [
  {
    operation: 'createTemplate',
    target: null, // set per transport below
    rest: {
      apiId: 'api.query.template.create',
      send: (id) => rest(id).post('/v2/template/create', envelope('api.query.template.create', { template_name: 'Audit rest', query_type: 'sql', query: SQL_QUERY })),
    },
    graphql: (id) => gql(id, 'mutation($q: String!) { createTemplate(input: { name: "Audit gql", queryType: SQL, query: $q }) { template { id } } }', { q: SQL_QUERY }),
  },
  {
    operation: 'updateTemplate',
    target: null,
    rest: { apiId: 'api.query.template.update', send: (id) => rest(id).patch('/v2/template/update/audit_rest', envelope('api.query.template.update', { template_name: 'Audit rest' })) },
    graphql: (id) => gql(id, 'mutation { updateTemplate(id: "audit_gql", input: { name: "Audit gql" }) { template { id } } }'),
  },
  {
    operation: 'deleteTemplate',
    target: null,
    rest: { apiId: 'api.query.template.delete', send: (id) => rest(id).delete('/v2/template/delete/audit_rest') },
    graphql: (id) => gql(id, 'mutation { deleteTemplate(id: "audit_gql") { message } }'),
  },
  {
    operation: 'importDataset',
    target: null,
    rest: { apiId: 'api.datasets.import', send: (id) => rest(id).post('/v2/datasets/import', envelope('api.datasets.import', definition('audit-import-rest'))) },
    graphql: (id) => gql(id, 'mutation($d: JSON!) { importDataset(definition: $d) { id } }', { d: definition('audit-import-gql') }),
  },
  {
    operation: 'copyDataset',
    target: null,
    rest: {
      apiId: 'api.datasets.copy',
      send: (id) => rest(id).post('/v2/datasets/copy', envelope('api.datasets.copy', { source: { datasetId: 'audit-live', isLive: true }, destination: { datasetId: 'audit-copy-rest' } })),
    },
    graphql: (id) => gql(id, 'mutation { copyDataset(input: { sourceId: "audit-live", sourceVersion: LIVE, destinationId: "audit-copy-gql" }) { dataset { id } } }'),
  },
  {
    operation: 'transitionDataset',
    target: null,
    rest: {
      apiId: 'api.datasets.status-transition',
      send: (id) => rest(id).post('/v2/datasets/status-transition', envelope('api.datasets.status-transition', { dataset_id: 'audit-draft-rest', status: 'ReadyToPublish' })),
    },
    graphql: (id) => gql(id, 'mutation { transitionDataset(id: "audit-draft-gql", to: READY_TO_PUBLISH) { id } }'),
  },
  {
    operation: 'editDataset',
    target: 'audit-live',
    rest: { apiId: 'api.datasets.read', send: (id) => rest(id).get('/v2/datasets/read/audit-live?mode=edit') },
    graphql: (id) => gql(id, 'mutation { editDataset(id: "audit-live") { id } }'),
  },
  {
    operation: 'generateFileUrls',
    target: null,
    rest: { apiId: 'api.files.generate-url', send: (id) => rest(id).post('/v2/files/generate-url', envelope('api.files.generate-url', { files: ['a.csv'] })) },
    graphql: (id) => gql(id, 'mutation { generateFileUrls(files: ["b.csv"]) { fileName } }'),
  },
  {
    operation: 'createMetricAlias',
    target: null,
    rest: { apiId: 'api.metric.add', send: (id) => rest(id).post('/alerts/v1/metric/alias/create', alias('rest')) },
    graphql: (id) => gql(id, 'mutation($i: CreateMetricAliasInput!) { createMetricAlias(input: $i) { metricAlias { id } } }', { i: alias('gql') }),
  },
];

const EXPECTED_TARGETS: Record<string, { rest: string | null; graphql: string | null }> = {
  createTemplate: { rest: 'audit_rest', graphql: 'audit_gql' },
  updateTemplate: { rest: 'audit_rest', graphql: 'audit_gql' },
  deleteTemplate: { rest: 'audit_rest', graphql: 'audit_gql' },
  importDataset: { rest: 'audit-import-rest', graphql: 'audit-import-gql' },
  copyDataset: { rest: 'audit-copy-rest', graphql: 'audit-copy-gql' },
  transitionDataset: { rest: 'audit-draft-rest', graphql: 'audit-draft-gql' },
  editDataset: { rest: 'audit-live', graphql: 'audit-live' },
  generateFileUrls: { rest: null, graphql: null },
  createMetricAlias: { rest: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown as string, graphql: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown as string },
};

describe('an audit record for each mutation', () => {
  for (const testCase of CASES) {
    it(`is written for ${testCase.operation} over REST and over GraphQL`, async () => {
      const restId = `audit-rest-${testCase.operation}`;
      const response = await testCase.rest!.send(restId);
      expect([response.status, response.body.error]).toEqual([200, undefined]);
      expect(await recordsOf(restId)).toEqual([
        {
          request_id: restId,
          actor: 'SYSTEM',
          transport: 'rest',
          api_id: testCase.rest!.apiId,
          operation: testCase.operation,
          target_id: EXPECTED_TARGETS[testCase.operation]!.rest,
          outcome: 'success',
          error_code: null,
        },
      ]);

      const gqlId = `audit-gql-${testCase.operation}`;
      const answer = await testCase.graphql(gqlId);
      expect(answer.errors).toBeUndefined();
      expect(await recordsOf(gqlId)).toEqual([
        {
          request_id: gqlId,
          actor: 'SYSTEM',
          transport: 'graphql',
          api_id: null,
          operation: testCase.operation,
          target_id: EXPECTED_TARGETS[testCase.operation]!.graphql,
          outcome: 'success',
          error_code: null,
        },
      ]);
    });
  }

  it('records a failed call with its error code', async () => {
    await rest('audit-fail-rest').delete('/v2/template/delete/no_such_template');
    expect(await recordsOf('audit-fail-rest')).toMatchObject([
      { operation: 'deleteTemplate', target_id: 'no_such_template', outcome: 'failure', error_code: 'QUERY_TEMPLATE_NOT_EXISTS', transport: 'rest' },
    ]);
    await gql('audit-fail-gql', 'mutation { transitionDataset(id: "no-such-dataset", to: LIVE) { id } }');
    expect(await recordsOf('audit-fail-gql')).toMatchObject([{ operation: 'transitionDataset', target_id: 'no-such-dataset', outcome: 'failure', transport: 'graphql' }]);
  });

  it('writes nothing for reads, for requests the edge refuses, or for ingestion', async () => {
    await rest('audit-read').get('/v2/template/read/audit_rest');
    await rest('audit-refused').post('/v2/template/create', envelope('api.query.template.create', { template_name: 42 }));
    const ingested = await rest('audit-ingest').post('/v2/data/in/audit-live', { id: 'api.data.in', ver: 'v2', ts: new Date().toISOString(), params: { msgid: 'a1' }, data: { id: 'x' } });
    expect(ingested.status).toBe(200);
    for (const id of ['audit-read', 'audit-refused', 'audit-ingest']) expect(await recordsOf(id)).toEqual([]);
  });

  it('covers every mutation of the schema except the ones named as unaudited', () => {
    const schema = withAuditTrail(buildSchema('test'));
    const all = Object.keys(schema.getMutationType()!.getFields());
    expect(auditedMutations(schema).sort()).toEqual(all.filter((name) => !(name in UNAUDITED_MUTATIONS)).sort());
    // Wrapping twice changes nothing.
    expect(auditedMutations(withAuditTrail(schema)).sort()).toEqual(auditedMutations(schema).sort());
  });
});

/** Adds a check that refuses some rows to `table` for the length of `work` (NOT VALID: rows already there stay). */
async function refusing(table: string, check: string, work: () => Promise<void>): Promise<void> {
  await gw.sql(`ALTER TABLE ${table} ADD CONSTRAINT audit_test_refusal CHECK (${check}) NOT VALID`);
  try {
    await work();
  } finally {
    await gw.sql(`ALTER TABLE ${table} DROP CONSTRAINT audit_test_refusal`);
  }
}

const statusOf = async (datasetId: string) =>
  (await gw.sql<{ stage: string; status: string; alias: string | null }>('SELECT stage, status, alias FROM datasets WHERE dataset_id = $1 ORDER BY stage', [datasetId])).rows;

describe('a change and its audit record are one transaction', () => {
  const TRANSPORTS = {
    rest: {
      transition: async (requestId: string, datasetId: string, status: string) => {
        const response = await rest(requestId).post('/v2/datasets/status-transition', envelope('api.datasets.status-transition', { dataset_id: datasetId, status }));
        return { status: response.status, code: response.body.error?.code as string | undefined };
      },
    },
    graphql: {
      transition: async (requestId: string, datasetId: string, status: string) => {
        const to = { ReadyToPublish: 'READY_TO_PUBLISH', Retire: 'RETIRED' }[status];
        const answer = await gql(requestId, `mutation { transitionDataset(id: "${datasetId}", to: ${to}) { id } }`);
        return { status: answer.status, code: answer.errors?.[0]?.extensions?.code };
      },
    },
  };

  for (const [transport, driver] of Object.entries(TRANSPORTS)) {
    it(`makes no change when its record cannot be written, and answers an error (${transport})`, async () => {
      const datasetId = `audit-atomic-${transport}`;
      const requestId = `audit-unrecordable-${transport}`;
      await refusing('audit_records', `request_id <> '${requestId}'`, async () => {
        const answer = await driver.transition(requestId, datasetId, 'ReadyToPublish');
        expect(answer.code).toBe('INTERNAL_SERVER_ERROR');
        expect(await statusOf(datasetId)).toEqual([{ stage: 'draft', status: 'Draft', alias: null }]);
        expect(await recordsOf(requestId)).toEqual([]);
      });
      // Once records can be written, the same call changes the dataset and records it.
      const again = await driver.transition(`${requestId}-again`, datasetId, 'ReadyToPublish');
      expect(again.code).toBeUndefined();
      expect(await statusOf(datasetId)).toEqual([{ stage: 'draft', status: 'ReadyToPublish', alias: null }]);
      expect(await recordsOf(`${requestId}-again`)).toMatchObject([{ operation: 'transitionDataset', outcome: 'success', target_id: datasetId }]);
    });

    it(`leaves no part of a change that failed half-way, and records the failure (${transport})`, async () => {
      // Retiring clears the alias, then sets the status: the status is refused, so the alias must stay.
      const datasetId = `audit-retire-${transport}`;
      const requestId = `audit-half-way-${transport}`;
      await gw.sql("UPDATE datasets SET alias = $1 WHERE dataset_id = $2 AND stage = 'live'", [`audit_alias_${transport}_kept`, datasetId]);
      await refusing('datasets', `status <> 'Retired' OR dataset_id <> '${datasetId}'`, async () => {
        const answer = await driver.transition(requestId, datasetId, 'Retire');
        expect(answer.code).toBe('INTERNAL_SERVER_ERROR');
        expect(await statusOf(datasetId)).toEqual([{ stage: 'live', status: 'Live', alias: `audit_alias_${transport}_kept` }]);
        expect(await recordsOf(requestId)).toMatchObject([{ operation: 'transitionDataset', outcome: 'failure', error_code: 'INTERNAL_SERVER_ERROR', target_id: datasetId }]);
      });
    });
  }

  const viewsOf = async (datasetIds: string[]) =>
    (
      await gw.sql<{ name: string }>("SELECT table_name AS name FROM information_schema.views WHERE table_schema = 'datasources' AND table_name = ANY($1) ORDER BY 1", [
        datasetIds.map(pgIdentifierName),
      ])
    ).rows.map((row) => row.name);
  const publish = (requestId: string, datasetId: string) =>
    rest(requestId).post('/v2/datasets/status-transition', envelope('api.datasets.status-transition', { dataset_id: datasetId, status: 'Live' }));

  it('publishes twice as many datasets at once as the pool has connections, each with its queryable view', async () => {
    // The test gateway's pool holds 4 connections, and each publication holds one for its transaction.
    const datasetIds = Array.from({ length: 8 }, (_, i) => `audit-parallel-${i}`);
    for (const datasetId of datasetIds) await seedDataset(gw, datasetId, 'ReadyToPublish');
    const answers = await Promise.all(datasetIds.map((datasetId) => publish(`audit-parallel-${datasetId}`, datasetId)));
    expect(answers.map((answer) => [answer.status, answer.body.error?.code])).toEqual(datasetIds.map(() => [200, undefined]));
    expect(await viewsOf(datasetIds)).toEqual(datasetIds.map(pgIdentifierName).sort());
  });

  it('leaves no view of a publication that was undone', async () => {
    const datasetId = 'audit-undone-publication';
    const requestId = 'audit-undone-publication-call';
    await seedDataset(gw, datasetId, 'ReadyToPublish');
    await refusing('audit_records', `request_id <> '${requestId}'`, async () => {
      expect((await publish(requestId, datasetId)).body.error?.code).toBe('INTERNAL_SERVER_ERROR');
    });
    expect(await statusOf(datasetId)).toEqual([{ stage: 'draft', status: 'ReadyToPublish', alias: null }]);
    expect(await viewsOf([datasetId])).toEqual([]);
  });
});

describe('auditRecords', () => {
  it('lists the trail newest first, filtered, in stable pages', async () => {
    const query = `query($filter: AuditRecordFilter, $first: Int, $after: String) {
      auditRecords(filter: $filter, first: $first, after: $after) {
        nodes { id operation apiId transport targetId outcome errorCode actor requestId at }
        edges { cursor }
        pageInfo { hasNextPage hasPreviousPage endCursor }
      }
    }`;
    const first = await graphql(gw, query, { filter: { operation: 'createTemplate' }, first: 1 });
    expect(first.errors).toBeUndefined();
    const page1 = first.data!.auditRecords;
    expect(page1.nodes).toEqual([
      expect.objectContaining({ operation: 'createTemplate', transport: 'GRAPHQL', targetId: 'audit_gql', outcome: 'SUCCESS', actor: 'SYSTEM', requestId: 'audit-gql-createTemplate' }),
    ]);
    expect(page1.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });

    // A new record arriving between pages does not shift the next page.
    await gql('audit-between', 'mutation($q: String!) { createTemplate(input: { name: "Audit between", queryType: SQL, query: $q }) { template { id } } }', { q: SQL_QUERY });
    const second = await graphql(gw, query, { filter: { operation: 'createTemplate' }, first: 1, after: page1.pageInfo.endCursor });
    expect(second.data!.auditRecords.nodes).toEqual([expect.objectContaining({ transport: 'REST', apiId: 'api.query.template.create', targetId: 'audit_rest' })]);
    expect(second.data!.auditRecords.pageInfo).toMatchObject({ hasPreviousPage: true });

    const failures = await graphql(gw, query, { filter: { outcome: 'FAILURE', transport: 'REST' } });
    expect(failures.data!.auditRecords.nodes.map((node: { errorCode: string }) => node.errorCode)).toContain('QUERY_TEMPLATE_NOT_EXISTS');
    const byTarget = await graphql(gw, query, { filter: { targetId: 'audit-live', apiId: 'api.datasets.read' } });
    expect(byTarget.data!.auditRecords.nodes).toHaveLength(1);
  });

  it('refuses a cursor it did not make and a page larger than the maximum', async () => {
    const bad = await graphql(gw, '{ auditRecords(after: "bm90LWEtY3Vyc29y") { nodes { id } } }');
    expect(bad.errors?.[0]?.extensions?.code).toBe('INVALID_INPUT');
    const large = await graphql(gw, '{ auditRecords(first: 1001) { nodes { id } } }');
    expect(large.errors?.[0]?.extensions?.code).toBe('INVALID_INPUT');
    // An id past the bigint column's range is no cursor either: refused, never sent to the database.
    const pastRange = await graphql(gw, `{ auditRecords(after: "${auditCursor('9999999999999999999')}") { nodes { id } } }`);
    expect(pastRange.errors?.[0]?.extensions?.code).toBe('INVALID_INPUT');
  });
});

describe('auditTarget', () => {
  it('takes the id the caller names, else the id of what the call made', () => {
    expect(auditTarget({ id: 't1', input: {} }, { id: 'other' })).toBe('t1');
    expect(auditTarget({ datasetId: 'd1' }, undefined)).toBe('d1');
    expect(auditTarget({ input: { sourceId: 's', destinationId: 'd2' } }, undefined)).toBe('d2');
    expect(auditTarget({ input: { name: 'x' } }, { message: 'ok', template: { templateId: 'tpl' } })).toBe('tpl');
    expect(auditTarget({ files: ['a'] }, [{ fileName: 'a' }])).toBeNull();
  });
});
