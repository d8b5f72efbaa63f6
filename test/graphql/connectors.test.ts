// Connectors over GraphQL (POST /graphql; uploads as GraphQL multipart requests): what only GraphQL
// has. The behaviour both transports share is in test/contract/connectors.ts (hostile archives:
// test/contract/connector-archives.ts); here are cursor pages, the service's refusal of an empty
// filter list that REST's request schema answers first, the enums' refusals, reads in any state,
// the payload of registerConnector with sourceUrl, and multipart requests that are not one file.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ISO_UTC } from '../contract/connectors.js';
import { expectFailure, graphqlServiceOutcome } from '../contract/harness.js';
import { distributionTarGz, distributionZip, uiSpec } from '../support/archives.js';
import { graphql, type GraphQLResponse } from '../support/api.js';
import {
  filesUnder,
  insertConnector,
  MULTI_TENANT_CONNECTORS,
  multiTenantDistribution,
  registerOverGraphQL,
  registryStatus,
  registrySnapshot,
  startStoreGateway,
  type StoreGateway,
} from '../support/connectors.js';

let gw: StoreGateway;
beforeAll(async () => {
  gw = await startStoreGateway();
});
afterAll(async () => {
  await gw?.stop();
});

type Connector = Record<string, any>;
const REGISTER_ONE = 'mutation($file: Upload!) { registerConnector(file: $file) { message } }';

function listConnectors(variables: Record<string, unknown> = {}): Promise<GraphQLResponse<Record<string, any>>> {
  return graphql(
    gw,
    `
      query List($filter: ConnectorFilter, $first: Int, $after: String) {
        connectors(filter: $filter, first: $first, after: $after) {
          totalCount
          nodes {
            id: connectorVersionId
          }
          edges {
            cursor
            node {
              id: connectorVersionId
            }
          }
          pageInfo {
            hasNextPage
            hasPreviousPage
            endCursor
          }
        }
      }
    `,
    variables,
  );
}

async function listOk(variables: Record<string, unknown> = {}): Promise<{ totalCount: number; nodes: Connector[]; edges: { cursor: string }[]; pageInfo: Record<string, unknown> }> {
  const response = await listConnectors({ first: 1000, ...variables });
  expect(response.errors).toBeUndefined();
  return response.data!.connectors;
}

async function readOk(id: string, status: string | null): Promise<Connector> {
  const response = await graphql(gw, 'query Read($id: ID!, $status: ConnectorStatus) { connector(id: $id, status: $status) { id: connectorVersionId status sourceUrl createdAt liveAt } }', {
    id,
    status,
  });
  expect(response.errors).toBeUndefined();
  return response.data!.connector;
}

async function registerOk(bytes: Buffer, filename: string): Promise<Connector[]> {
  const response = await registerOverGraphQL(gw, bytes, filename);
  expect(response.errors).toBeUndefined();
  expect(response.data!.registerConnector.message).toBe('connector registered successfully.');
  return response.data!.registerConnector.connectors;
}

/** A multipart request for registerConnector, its map naming `map`. */
function multipart(map: Record<string, string[]>) {
  return gw.http
    .post('/graphql')
    .field('operations', JSON.stringify({ query: REGISTER_ONE, variables: { file: null } }))
    .field('map', JSON.stringify(map));
}

describe('connectors(filter, first, after)', () => {
  it('pages with first and after while totalCount stays the total', async () => {
    const all = await listOk();
    const first = await listOk({ first: 1 });
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const page = await listOk({ first: 2, after: first.edges[0]!.cursor });
    expect(page.totalCount).toBe(all.totalCount);
    expect(page.nodes.map((connector) => connector.id)).toEqual(all.nodes.slice(1, 3).map((connector) => connector.id));
  });

  it('returns CONNECTORS_LIST_INPUT_INVALID when filter.status or filter.category is empty', async () => {
    expectFailure(graphqlServiceOutcome(await listConnectors({ filter: { status: [] } }), 'connectors'), 'CONNECTORS_LIST_INPUT_INVALID', /filters\.status must have at least one item/);
    expectFailure(graphqlServiceOutcome(await listConnectors({ filter: { category: [] } }), 'connectors'), 'CONNECTORS_LIST_INPUT_INVALID', /filters\.category must have at least one item/);
  });

  it('refuses an unknown status or category value', async () => {
    const status = await listConnectors({ filter: { status: ['PUBLISHED'] } });
    expect(status.errors?.[0]?.message).toMatch(/PUBLISHED/);
    expect(status.data).toBeUndefined();
    const category = await listConnectors({ filter: { category: ['SPREADSHEET'] } });
    expect(category.errors?.[0]?.message).toMatch(/SPREADSHEET/);
  });
});

describe('connector(id, status)', () => {
  it('reads a version in any state with status null, and a Retired one with status RETIRED', async () => {
    const draft = await insertConnector(gw, 'gql-read-draft', '0.2.0', 'Draft');
    const retired = await insertConnector(gw, 'gql-read-retired', '0.1.0', 'Retired');
    expect((await readOk(draft, null)).status).toBe('DRAFT');
    expect((await readOk('postgres-connector-1.0.0', null)).status).toBe('LIVE');
    expect((await readOk(retired, null)).status).toBe('RETIRED');
    expect((await readOk(retired, 'RETIRED')).status).toBe('RETIRED');
  });

  it('gives a built-in connector no sourceUrl, and dates in ISO 8601 UTC', async () => {
    const postgres = await readOk('postgres-connector-1.0.0', 'LIVE');
    expect(postgres.sourceUrl).toBeNull();
    expect(postgres.createdAt).toMatch(ISO_UTC);
    expect(postgres.liveAt).toMatch(ISO_UTC);
  });
});

describe('registerConnector(file)', () => {
  it('answers the versions it made Live, with the stored archive as sourceUrl and the icon as a data URI', async () => {
    const [connector] = await registerOk(distributionTarGz({ id: 'gql-pg', version: '1.0.0', name: 'Gql Pg' }), 'gql-pg-1.0.0.tar.gz');
    expect(connector).toMatchObject({ id: 'gql-pg-1.0.0', connectorId: 'gql-pg', version: '1.0.0', status: 'LIVE', category: 'DATABASE', uiSpec: uiSpec('Gql Pg') });
    expect(connector!.sourceUrl).toMatch(/^connectors\/gql-pg-1\.0\.0_[0-9a-f]{6}\.tar\.gz$/);
    expect(connector!.liveAt).toMatch(ISO_UTC);
    expect(await filesUnder(`${gw.dataDir}/objects`)).toContain(connector!.sourceUrl);
    expect(await filesUnder(`${gw.dataDir}/tmp`)).toEqual([]);

    const icon = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
    const [zipped] = await registerOk(
      distributionZip({ id: 'gql-zip', version: '0.1.0', layout: 'folder', metadata: { icon: 'icon.svg' }, extra: [{ path: 'gql-zip-0.1.0/icon.svg', body: icon }] }),
      'gql-zip-0.1.0.zip',
    );
    expect(zipped).toMatchObject({ status: 'LIVE', iconUrl: `data:image/svg+xml;base64,${icon.toString('base64')}` });
  });

  it('answers every version of a multi-tenant distribution, in the order it declares them', async () => {
    const connectors = await registerOk(multiTenantDistribution(), 'os.tar.gz');
    expect(connectors.map((connector) => connector.id)).toEqual(MULTI_TENANT_CONNECTORS);
  });

  describe('a request that is not one file: 400 and nothing changes', () => {
    it('refuses a multipart request whose map names no file', async () => {
      const registry = await registrySnapshot(gw);
      const response = await multipart({ 0: ['variables.file'] }).set('apollo-require-preflight', 'true');
      expect(response.status).toBe(200);
      expect(response.body.errors[0].extensions.code).toBe('FAILED_TO_UPLOAD');
      expect(response.body.errors[0].message).toMatch(/File missing in the request/);
      expect(await registrySnapshot(gw)).toEqual(registry);
    });

    it('refuses an Upload given as JSON instead of a file', async () => {
      const response = await graphql(gw, REGISTER_ONE, { file: 'not a file' });
      expect(response.errors?.[0]?.message).toMatch(/Upload value invalid/);
    });

    it('refuses two files, naming the limit', async () => {
      const registry = await registrySnapshot(gw);
      const response = await multipart({ 0: ['variables.file'], 1: ['variables.other'] })
        .set('apollo-require-preflight', 'true')
        .attach('0', distributionTarGz({ id: 'gql-two-a' }), 'a.tar.gz')
        .attach('1', distributionTarGz({ id: 'gql-two-b' }), 'b.tar.gz');
      expect(response.status).toBe(413);
      expect(response.body.errors[0].message).toMatch(/1 max file uploads exceeded/);
      expect(await registrySnapshot(gw)).toEqual(registry);
    });

    it('needs the CSRF preflight header that multipart requests must carry', async () => {
      const response = await multipart({ 0: ['variables.file'] }).attach('0', distributionTarGz({ id: 'gql-csrf' }), 'csrf.tar.gz');
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).toMatch(/Cross-Site Request Forgery/);
      expect(await registryStatus(gw, 'gql-csrf-1.0.0')).toBeUndefined();
    });
  });
});
