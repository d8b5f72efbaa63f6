// Datasets over GraphQL (POST /graphql): what only GraphQL has. The behaviour both transports share
// is in test/contract/datasets.ts; here are the typed fields and the datasets mutations answer, the
// enums that refuse a value before any resolver runs, the `errors` entries, versions by enum, cursor
// pagination, and nested live/draft/denormSources. Every test uses dataset ids of its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectFailure as expectRefusal, graphqlOutcome } from '../contract/harness.js';
import { graphql, type GraphQLResponse } from '../support/api.js';
import { definition, denormField, insertV1Live, seedDataset, seedMaster, storedStatuses, storedVersions, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

const FIELDS = 'id: datasetId name type status stage tags version versionKey apiVersion datasetConfig entryTopic publishedAt';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const NUMERIC_TEXT = /^\d+$/;

interface Dataset {
  id: string;
  name: string;
  type: 'EVENT' | 'MASTER';
  status: 'DRAFT' | 'READY_TO_PUBLISH' | 'LIVE' | 'RETIRED';
  stage: 'LIVE' | 'DRAFT';
  tags: string[];
  version: number;
  versionKey: string;
  apiVersion: string | null;
  datasetConfig: Json;
  entryTopic: string | null;
  publishedAt: string | null;
}

interface Connection {
  edges: { cursor: string; node: { id: string; status: string; stage: string } }[];
  nodes: { id: string; status: string; stage: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

function readDataset(id: string, args: { version?: string; status?: string; fields?: string[] } = {}): Promise<GraphQLResponse<Json>> {
  return graphql(
    gw,
    `query Read($id: ID!, $version: DatasetVersion, $status: DatasetStatus, $fields: [String!]) { dataset(id: $id, version: $version, status: $status) { ${FIELDS} definition(fields: $fields) } }`,
    {
      id,
      ...args,
    },
  );
}

function listDatasets(variables: Json = {}): Promise<GraphQLResponse<Json>> {
  return graphql(
    gw,
    `
      query List($filter: DatasetFilter, $first: Int, $after: String) {
        datasets(filter: $filter, first: $first, after: $after) {
          edges {
            cursor
            node {
              id: datasetId
              status
              stage
            }
          }
          nodes {
            id: datasetId
            status
            stage
          }
          pageInfo {
            hasNextPage
            hasPreviousPage
            startCursor
            endCursor
          }
          totalCount
        }
      }
    `,
    variables,
  );
}

function move(id: string, to: string): Promise<GraphQLResponse<Json>> {
  return graphql(gw, `mutation Move($id: ID!, $to: DatasetTransition!) { transitionDataset(id: $id, to: $to) { id message dataset { ${FIELDS} live { version } draft { version } } } }`, { id, to });
}

/** `data[field]` of a response without errors. */
function dataOf<T = Json>(response: GraphQLResponse<Json>, field: string): T {
  expect(response.errors).toBeUndefined();
  return response.data![field] as T;
}

async function readOk(id: string, args: { version?: string; status?: string; fields?: string[] } = {}): Promise<Dataset & { definition: Json }> {
  const dataset = dataOf<(Dataset & { definition: Json }) | null>(await readDataset(id, args), 'dataset');
  expect(dataset).not.toBeNull();
  return dataset!;
}

async function listOk(variables: Json = {}): Promise<Connection> {
  return dataOf<Connection>(await listDatasets(variables), 'datasets');
}

/** One error from our services, of this code and kind (extensions.responseCode). */
function expectFailure(response: GraphQLResponse, code: string, responseCode: string, message: RegExp): void {
  expect({ status: response.status, errors: response.errors?.length, responseCode: response.errors?.[0]?.extensions?.responseCode }).toEqual({ status: 200, errors: 1, responseCode });
  expectRefusal(graphqlOutcome(response, 'dataset'), code, message);
}

/** GraphQL itself refused the request (type or validation level): no data, an error matching `message`. */
function expectRefusedByGraphQL(response: GraphQLResponse, message: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.data ?? null).toBeNull();
  expect(response.errors?.length).toBeGreaterThan(0);
  expect(response.errors![0]!.message).toMatch(message);
}

// ---------------------------------------------------------------------------------------------

describe('transitionDataset(id, to)', () => {
  it('answers the dataset it moved: the draft after READY_TO_PUBLISH, the Live version after LIVE and RETIRED', async () => {
    await seedDataset(gw, 'moved', 'Draft');
    expect(dataOf(await move('moved', 'READY_TO_PUBLISH'), 'transitionDataset')).toMatchObject({
      id: 'moved',
      message: 'Dataset status transition to ReadyToPublish successful',
      dataset: { id: 'moved', status: 'READY_TO_PUBLISH', stage: 'DRAFT', version: 1 },
    });

    const published = dataOf<{ dataset: Dataset }>(await move('moved', 'LIVE'), 'transitionDataset').dataset;
    expect(published).toMatchObject({ status: 'LIVE', stage: 'LIVE', version: 1, apiVersion: 'v2', datasetConfig: definition('moved').dataset_config, live: { version: 1 }, draft: null });
    expect(published.publishedAt).toMatch(ISO_UTC);
    expect(published.entryTopic).toEqual(expect.any(String));
    expect(published.entryTopic!.length).toBeGreaterThan(0);
    expect((await readOk('moved')).entryTopic).toBe(published.entryTopic);

    expect(dataOf(await move('moved', 'RETIRED'), 'transitionDataset')).toMatchObject({ dataset: { status: 'RETIRED', stage: 'LIVE' } });
  });

  it('answers no dataset after DELETE', async () => {
    await seedDataset(gw, 'moved-away', 'LiveWithDraft');
    expect(dataOf(await move('moved-away', 'DELETE'), 'transitionDataset')).toEqual({ id: 'moved-away', message: 'Dataset status transition to Delete successful', dataset: null });
  });

  it('gives a refused move as one error of kind BAD_REQUEST and no data', async () => {
    await seedDataset(gw, 'draft-to-live', 'Draft');
    const response = await move('draft-to-live', 'LIVE');
    expectFailure(response, 'DATASET_LIVE_FAILURE', 'BAD_REQUEST', /draft-to-live/);
    expect(response.data ?? null).toBeNull();
    expectFailure(await move('never-imported', 'LIVE'), 'DATASET_NOT_FOUND', 'NOT_FOUND', /never-imported/);
  });

  it('offers RETIRED only: the REST alias Retire is not a GraphQL value and is refused at the type level', async () => {
    await seedDataset(gw, 'retire-alias', 'Live');
    expectRefusedByGraphQL(await move('retire-alias', 'RETIRE'), /RETIRE/);
    expect(await storedStatuses(gw, 'retire-alias')).toEqual([['live', 'Live']]);
  });

  it('refuses a move outside the lifecycle at the type level (DatasetTransition enum), and changes nothing', async () => {
    await seedDataset(gw, 'odd-status', 'Draft');
    const before = await storedVersions(gw, 'odd-status');
    expectRefusedByGraphQL(await move('odd-status', 'PUBLISHED'), /PUBLISHED/);
    expect(await storedVersions(gw, 'odd-status')).toEqual(before);
  });
});

describe('importDataset(definition, overwrite)', () => {
  const IMPORT = `mutation Import($definition: JSON!, $overwrite: Boolean) {
    importDataset(definition: $definition, overwrite: $overwrite) { id versionKey message ignoredFields dataset { ${FIELDS} definition } }
  }`;

  it('answers the stored draft: its typed fields, and the definition a draft read gives', async () => {
    const imported = dataOf<{ id: string; versionKey: string; ignoredFields: Json | null; dataset: Dataset & { definition: Json } }>(
      await graphql(gw, IMPORT, { definition: definition('import-answer') }),
      'importDataset',
    );
    expect(imported.ignoredFields).toBeNull();
    expect(imported.versionKey).toMatch(NUMERIC_TEXT);
    expect(imported.dataset).toMatchObject({
      id: 'import-answer',
      name: 'Dataset import-answer',
      type: 'EVENT',
      status: 'DRAFT',
      stage: 'DRAFT',
      version: 1,
      versionKey: imported.versionKey,
      apiVersion: 'v2',
    });
    expect(imported.dataset.datasetConfig).toEqual(imported.dataset.definition.dataset_config);
    expect((await readOk('import-answer', { version: 'DRAFT' })).definition).toEqual(imported.dataset.definition);
  });

  it('answers a draft imported over a Live dataset with its version, live + 1', async () => {
    await seedDataset(gw, 'import-answer-over-live', 'Live');
    const imported = dataOf<{ dataset: Dataset }>(await graphql(gw, IMPORT, { definition: definition('import-answer-over-live', { name: 'Edited' }), overwrite: false }), 'importDataset');
    expect(imported.dataset).toMatchObject({ name: 'Edited', status: 'DRAFT', version: 2 });
  });

  it('refuses an overwrite value that is not a Boolean at the type level, and stores nothing', async () => {
    const response = await graphql(gw, 'mutation($d: JSON!) { importDataset(definition: $d, overwrite: "yes") { id } }', { d: definition('import-odd-overwrite') });
    expectRefusedByGraphQL(response, /Boolean/);
    expect(await storedVersions(gw, 'import-odd-overwrite')).toEqual([]);
  });
});

describe('dataset(id, version, status)', () => {
  it('gives typed fields that agree with the definition', async () => {
    await seedDataset(gw, 'read-typed', 'Live', { tags: ['alpha', 'beta'] });
    const dataset = await readOk('read-typed');
    expect(dataset).toMatchObject({ id: 'read-typed', name: 'Dataset read-typed', type: 'EVENT', status: 'LIVE', stage: 'LIVE', tags: ['alpha', 'beta'], version: 1, apiVersion: 'v2' });
    expect(dataset.datasetConfig).toEqual(dataset.definition.dataset_config);
    expect(dataset.entryTopic).toBe(dataset.definition.entry_topic);
  });

  it('picks the version with version: DRAFT or LIVE, and finds no DRAFT once the draft is published', async () => {
    await seedDataset(gw, 'read-by-version', 'LiveWithDraft');
    expect(await readOk('read-by-version', { version: 'DRAFT' })).toMatchObject({ status: 'DRAFT', stage: 'DRAFT', version: 2 });
    expect(await readOk('read-by-version', { version: 'LIVE' })).toMatchObject({ status: 'LIVE', stage: 'LIVE', version: 1 });
    await seedDataset(gw, 'read-by-version-published', 'Live');
    expectFailure(await readDataset('read-by-version-published', { version: 'DRAFT' }), 'DATASET_NOT_FOUND', 'NOT_FOUND', /read-by-version-published/);
  });

  it('places DATASET_INVALID_FIELDS at dataset.definition', async () => {
    await seedDataset(gw, 'read-bad-field', 'Live');
    const response = await readDataset('read-bad-field', { fields: ['name', 'colour'] });
    expectFailure(response, 'DATASET_INVALID_FIELDS', 'BAD_REQUEST', /colour/);
    expect(response.errors![0]!.path).toEqual(['dataset', 'definition']);
  });

  it('gives dataset null with DATASET_NOT_FOUND (NOT_FOUND)', async () => {
    const missing = await readDataset('read-missing');
    expectFailure(missing, 'DATASET_NOT_FOUND', 'NOT_FOUND', /read-missing/);
    expect(missing.data).toEqual({ dataset: null });
  });

  it('refuses a status that is not a dataset status at the type level (DatasetStatus enum)', async () => {
    expectRefusedByGraphQL(await readDataset('read-odd-status', { status: 'PUBLISHED' }), /PUBLISHED/);
  });

  it.each<[string, 'v1' | null]>([
    ['v1', 'v1'],
    ['null', null],
  ])('writes the stored dataset_config text of an api_version %s Live record into datasetConfig and definition byte for byte', async (label, apiVersion) => {
    const id = `read-v1-text-${label}`;
    const configText = await insertV1Live(gw, id, { apiVersion });
    const response = await gw.http.post('/graphql').send({ query: 'query($id: ID!) { dataset(id: $id) { datasetConfig definition(fields: ["dataset_config"]) } }', variables: { id } });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.text).toContain(`"datasetConfig":${configText}`);
    expect(response.text).toContain(`"definition":{"dataset_config":${configText}}`);
  });

  it('gives the original redis_db_* names of an old record as cache_db_* in datasetConfig too', async () => {
    await insertV1Live(gw, 'read-v1-redis', { datasetConfig: { data_key: '', timestamp_key: 'ts', redis_db_host: 'old.cache', redis_db_port: 6379, index_data: true, redis_db: 2 } });
    const dataset = await readOk('read-v1-redis', { fields: ['dataset_config'] });
    expect(JSON.stringify(dataset.datasetConfig)).toBe(JSON.stringify(dataset.definition.dataset_config));
    expect(JSON.stringify(dataset.datasetConfig)).not.toMatch(/redis_db/);
  });
});

describe('editDataset(id)', () => {
  it('answers the draft with its typed fields', async () => {
    await insertV1Live(gw, 'edit-typed', { type: 'master' });
    const response = await graphql(gw, `mutation($id: ID!) { editDataset(id: $id) { ${FIELDS} } }`, { id: 'edit-typed' });
    const draft = dataOf<Dataset>(response, 'editDataset');
    expect(draft).toMatchObject({ id: 'edit-typed', type: 'MASTER', status: 'DRAFT', stage: 'DRAFT', version: 4, apiVersion: 'v2', entryTopic: 'local.ingest' });
    expect(draft.versionKey).toMatch(NUMERIC_TEXT);
  });
});

describe('datasets(filter, first, after)', () => {
  beforeAll(async () => {
    await seedDataset(gw, 'list-draft', 'Draft');
    await seedDataset(gw, 'list-ready', 'ReadyToPublish');
    await seedDataset(gw, 'list-live', 'Live');
    await seedDataset(gw, 'list-both', 'LiveWithDraft');
    await seedMaster(gw, 'list-master');
  });

  const pairs = (nodes: { id: string; status: string }[]) => nodes.map((node) => `${node.id}:${node.status}`);

  it('gives one page without paging arguments, edges holding the nodes, each node its stage', async () => {
    const page = await listOk();
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    expect(page.edges.map((edge) => edge.node)).toEqual(page.nodes);
    expect(page.nodes).toEqual(
      expect.arrayContaining([
        { id: 'list-both', status: 'LIVE', stage: 'LIVE' },
        { id: 'list-both', status: 'DRAFT', stage: 'DRAFT' },
      ]),
    );
  });

  it('pages with first and after: the pages together are the whole list in order, totalCount on every page', async () => {
    const whole = await listOk();
    const seen: string[] = [];
    let after: string | null = null;
    for (let pageNumber = 0; pageNumber < 100; pageNumber += 1) {
      const page: Connection = await listOk({ first: 3, after });
      expect(page.totalCount).toBe(whole.totalCount);
      expect(page.nodes.length).toBeLessThanOrEqual(3);
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      seen.push(...pairs(page.nodes));
      if (!page.pageInfo.hasNextPage) break;
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)!.cursor);
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(pairs(whole.nodes));
  });

  it('refuses a status or type outside the enums at the type level', async () => {
    expectRefusedByGraphQL(await listDatasets({ filter: { status: ['LIVE', 'PUBLISHED'] } }), /PUBLISHED/);
    expectRefusedByGraphQL(await listDatasets({ filter: { type: 'STREAM' } }), /STREAM/);
  });

  it.each<[string, Json]>([
    ['a negative page size', { first: -1 }],
    ['a cursor this list did not give', { after: 'not-a-cursor' }],
  ])('returns DATASET_LIST_INPUT_INVALID for %s', async (_, variables) => {
    expectFailure(await listDatasets(variables), 'DATASET_LIST_INPUT_INVALID', 'BAD_REQUEST', /first|after|cursor|page/);
  });
});

describe('nested live, draft and denormSources', () => {
  it('resolves live and draft from either version of a dataset', async () => {
    await seedDataset(gw, 'nested-both', 'LiveWithDraft');
    const query = `query($id: ID!, $version: DatasetVersion) {
      dataset(id: $id, version: $version) { stage version live { stage status version } draft { stage status version } }
    }`;
    const fromLive = await graphql(gw, query, { id: 'nested-both', version: 'LIVE' });
    expect(fromLive.errors).toBeUndefined();
    expect(fromLive.data!.dataset).toEqual({
      stage: 'LIVE',
      version: 1,
      live: { stage: 'LIVE', status: 'LIVE', version: 1 },
      draft: { stage: 'DRAFT', status: 'DRAFT', version: 2 },
    });
    const fromDraft = await graphql(gw, query, { id: 'nested-both', version: 'DRAFT' });
    expect(fromDraft.data!.dataset).toEqual({
      stage: 'DRAFT',
      version: 2,
      live: { stage: 'LIVE', status: 'LIVE', version: 1 },
      draft: { stage: 'DRAFT', status: 'DRAFT', version: 2 },
    });
  });

  it('gives null for the version a dataset does not have', async () => {
    await seedDataset(gw, 'nested-draft-only', 'Draft');
    const response = await graphql(gw, 'query($id: ID!) { dataset(id: $id, version: DRAFT) { live { version } draft { version } } }', { id: 'nested-draft-only' });
    expect(response.data!.dataset).toEqual({ live: null, draft: { version: 1 } });
  });

  it('resolves denormSources to the Live masters a dataset denormalises from, on every node of a list', async () => {
    await seedMaster(gw, 'nested-users');
    await seedMaster(gw, 'nested-shops');
    await seedDataset(gw, 'nested-orders', 'Live', {
      denorm_config: { denorm_fields: [denormField('nested-users', 'user'), denormField('nested-shops', 'shop')] },
    });
    await seedDataset(gw, 'nested-plain', 'Live');
    const single = await graphql(gw, 'query { dataset(id: "nested-orders") { denormSources { id: datasetId type status stage } } }');
    expect(single.errors).toBeUndefined();
    const sources = (single.data!.dataset.denormSources as Json[]).sort((a, b) => String(a.id).localeCompare(String(b.id)));
    expect(sources).toEqual([
      { id: 'nested-shops', type: 'MASTER', status: 'LIVE', stage: 'LIVE' },
      { id: 'nested-users', type: 'MASTER', status: 'LIVE', stage: 'LIVE' },
    ]);

    const listed = await graphql(gw, 'query { datasets(filter: { status: [LIVE] }) { nodes { id: datasetId denormSources { id: datasetId } live { id: datasetId } draft { id: datasetId } } } }');
    expect(listed.errors).toBeUndefined();
    const byId = new Map((listed.data!.datasets.nodes as Json[]).map((node) => [node.id, node]));
    expect((byId.get('nested-orders')!.denormSources as Json[]).map((s) => s.id).sort()).toEqual(['nested-shops', 'nested-users']);
    expect(byId.get('nested-plain')).toEqual({ id: 'nested-plain', denormSources: [], live: { id: 'nested-plain' }, draft: null });
    expect(byId.get('nested-users')!.denormSources).toEqual([]);
  });
});

describe('copyDataset(input)', () => {
  it('answers the new draft with its typed fields and definition', async () => {
    await seedDataset(gw, 'copy-answer-src', 'Live', { name: 'Copy Source', tags: ['copied'] });
    const response = await graphql(gw, `mutation Copy($input: CopyDatasetInput!) { copyDataset(input: $input) { message dataset { ${FIELDS} definition } } }`, {
      input: { sourceId: 'copy-answer-src', sourceVersion: 'LIVE', destinationId: 'copy-answer-dst' },
    });
    const copied = dataOf<{ message: string; dataset: Dataset & { definition: Json } }>(response, 'copyDataset');
    expect(copied.message).toBe('Dataset clone successful');
    expect(copied.dataset).toMatchObject({ id: 'copy-answer-dst', name: 'Copy Source', tags: ['copied'], status: 'DRAFT', stage: 'DRAFT', version: 1, apiVersion: 'v2' });
    expect(copied.dataset.definition).toMatchObject({ router_config: { topic: 'copy-answer-dst' }, data_schema: definition('copy-answer-src').data_schema });
  });

  it('refuses a copy without a destination at the type level', async () => {
    const response = await graphql(gw, 'mutation { copyDataset(input: { sourceId: "x-src", sourceVersion: LIVE }) { message } }');
    expectRefusedByGraphQL(response, /destinationId/);
  });
});
