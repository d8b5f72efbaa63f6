// Persisted operations (issue 10): the allow list generated from graphql/operations/ into
// persisted-operations.json. Any caller may send a listed operation by its id; the callers named by
// PERSISTED_OPERATIONS_REQUIRED_FOR run listed operations only (by id, or as text in any layout);
// others keep sending any text; REST is not affected. The file itself is checked at start-up.
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope, SQL_QUERY } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { loadConfig } from '../../src/config.js';
import { aliasLimitRule, depthLimitRule, priceOperation } from '../../src/graphql/limits.js';
import { buildManifest, loadPersistedOperations, persistedOnlyFor, type ManifestOperation, type PersistedQueryManifest } from '../../src/graphql/persisted-operations.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { ROOT } from '../../scripts/generated-files.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'persisted-operations.json'), 'utf8')) as PersistedQueryManifest;
const listed = (name: string): ManifestOperation => {
  const found = manifest.operations.find((operation) => operation.name === name);
  if (!found) throw new Error(`${name} is not in persisted-operations.json`);
  return found;
};
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const byId = (operation: ManifestOperation) => ({ persistedQuery: { version: 1, sha256Hash: operation.id } });

const UNLISTED = 'query Mine { templates(first: 5) { totalCount } }';
const BOUND_ROLE = 'dataset_manager';

let open: TestGateway;
let bound: TestGateway;

beforeAll(async () => {
  [open, bound] = await Promise.all([startTestGateway(), startTestGateway({ ...JWT_ENV, PERSISTED_OPERATIONS_REQUIRED_FOR: `role:${BOUND_ROLE}, caller:dashboard-bot` })]);
}, 60_000);
afterAll(async () => {
  await Promise.all([open?.stop(), bound?.stop()]);
});

function post(gw: TestGateway, body: Record<string, unknown>, bearer?: string) {
  const request = gw.http.post('/graphql').set('content-type', 'application/json');
  if (bearer) request.set('authorization', `Bearer ${bearer}`);
  return request.send(body);
}

describe('the generated allow list', () => {
  const schema = buildSchema('test');

  it('holds every operation of graphql/operations/, each id the SHA-256 of its body', () => {
    expect(manifest.format).toBe('apollo-persisted-query-manifest');
    expect(manifest.operations.length).toBeGreaterThanOrEqual(40);
    for (const operation of manifest.operations) expect([operation.name, sha256(operation.body)]).toEqual([operation.name, operation.id]);
  });

  it('covers every Query and Mutation root field the dashboard can call', () => {
    const used = new Set<string>();
    for (const operation of manifest.operations) {
      const definition = parse(operation.body).definitions.find((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION)!;
      for (const selection of definition.selectionSet.selections) if (selection.kind === Kind.FIELD) used.add(`${definition.operation}.${selection.name.value}`);
    }
    const roots = [...Object.keys(schema.getQueryType()!.getFields()).map((field) => `query.${field}`), ...Object.keys(schema.getMutationType()!.getFields()).map((field) => `mutation.${field}`)];
    expect(roots.filter((field) => !used.has(field))).toEqual([]);
  });

  it('keeps every listed operation within the default cost limit at pages of 100', () => {
    const { maxCost } = loadConfig({}).graphqlLimits;
    for (const operation of manifest.operations) {
      const document = parse(operation.body);
      const definition = document.definitions.find((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION)!;
      expect([operation.name, priceOperation(schema, document, definition, { first: 100 }).cost <= maxCost]).toEqual([operation.name, true]);
    }
  });

  it('refuses operations files that would make a bad list, naming each problem', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'operations-'));
    writeFileSync(path.join(dir, 'a.graphql'), 'query { version }\nquery Twice { version }\nquery Wrong { noSuchField }\n');
    writeFileSync(path.join(dir, 'b.graphql'), 'query Twice { version }\nquery Deep { templates { edges { node { id } } } }\n');
    const problems = (() => {
      try {
        buildManifest(schema, dir, [depthLimitRule(3), aliasLimitRule(30)]);
        return [];
      } catch (error) {
        return (error as Error).message.split('\n  - ').slice(1);
      }
    })();
    expect(problems).toEqual([
      'a.graphql: This anonymous operation must be the only defined operation.',
      'a.graphql: Cannot query field "noSuchField" on type "Query".',
      'a.graphql: every operation needs a name',
      'b.graphql: operation Twice is also defined in a.graphql',
      'b.graphql: Deep: The operation nests 4 levels deep; at most 3 are allowed (GRAPHQL_MAX_DEPTH).',
    ]);
  });

  it('is checked at start-up: a tampered id or an operation the schema no longer has stops the gateway', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-'));
    mkdirSync(dir, { recursive: true });
    const tampered = { ...manifest, operations: [{ ...listed('GetQueryTemplate'), body: listed('GetQueryTemplate').body.replace('name', 'name\n  query') }] };
    writeFileSync(path.join(dir, 'tampered.json'), JSON.stringify(tampered));
    expect(() => loadPersistedOperations(schema, path.join(dir, 'tampered.json'))).toThrow(/GetQueryTemplate\): id is not the SHA-256 of its body/);
    const staleBody = 'query Old { retiredField }';
    writeFileSync(path.join(dir, 'stale.json'), JSON.stringify({ ...manifest, operations: [{ id: sha256(staleBody), name: 'Old', type: 'query', body: staleBody }] }));
    expect(() => loadPersistedOperations(schema, path.join(dir, 'stale.json'))).toThrow(/Old\): Cannot query field "retiredField"/);
    writeFileSync(path.join(dir, 'other.json'), JSON.stringify({ operations: {} }));
    expect(() => loadPersistedOperations(schema, path.join(dir, 'other.json'))).toThrow(/not an apollo-persisted-query-manifest/);
  });

  it('binds callers by role, by caller id, or everyone', () => {
    const viewer = { id: 'u1', roles: ['viewer'], via: 'jwt' as const };
    expect([persistedOnlyFor([])(viewer), persistedOnlyFor(['*'])(undefined), persistedOnlyFor(['role:viewer'])(viewer), persistedOnlyFor(['role:admin'])(viewer)]).toEqual([false, true, true, false]);
    expect([persistedOnlyFor(['caller:u1'])(viewer), persistedOnlyFor(['caller:u2'])(viewer), persistedOnlyFor(['role:viewer'])(undefined)]).toEqual([true, false, false]);
  });
});

describe('sending a listed operation by its id (any caller)', () => {
  it('runs it as if its text had been sent', async () => {
    const create = await post(open, { extensions: byId(listed('CreateQueryTemplate')), variables: { input: { name: 'By id', queryType: 'SQL', query: SQL_QUERY } } });
    expect(create.status).toBe(200);
    expect(create.body.data.createTemplate.template).toMatchObject({ templateId: 'by_id', name: 'By id', queryType: 'SQL' });

    const byText = await post(open, { query: listed('GetQueryTemplate').body, variables: { id: 'by_id' } });
    const byHash = await post(open, { extensions: byId(listed('GetQueryTemplate')), variables: { id: 'by_id' } });
    expect(byHash.body).toEqual(byText.body);
    expect(byHash.body.data.template.query).toBe(SQL_QUERY);
  });

  it('works over GET for queries, as Apollo Client sends them', async () => {
    const response = await open.http
      .get('/graphql')
      .query({ extensions: JSON.stringify(byId(listed('ListQueryTemplates'))), variables: JSON.stringify({ first: 10 }) })
      .set('apollo-require-preflight', 'true');
    expect(response.status).toBe(200);
    expect(response.body.data.templates.edges.map((edge: { node: { templateId: string } }) => edge.node.templateId)).toContain('by_id');
  });

  it('answers an unknown id with PERSISTED_QUERY_NOT_FOUND, so an APQ client resends the text', async () => {
    const response = await post(open, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256('query Unknown { version }') } } });
    expect(response.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(response.body.data).toBeUndefined();
  });

  it('refuses an id sent with a text it is not the hash of', async () => {
    const response = await post(open, { query: UNLISTED, extensions: byId(listed('ListQueryTemplates')) });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toMatch(/provided sha does not match query/);
  });

  it('leaves callers that are not bound free to send any text', async () => {
    const response = await post(open, { query: UNLISTED });
    expect({ status: response.status, errors: response.body.errors }).toEqual({ status: 200, errors: undefined });
  });
});

describe('a caller bound to the allow list (PERSISTED_OPERATIONS_REQUIRED_FOR)', () => {
  let manager: string;
  let admin: string;
  let bot: string;
  beforeAll(async () => {
    [manager, admin, bot] = await Promise.all([token({ roles: [BOUND_ROLE], sub: 'manager-1' }), token({ roles: ['admin'], sub: 'admin-1' }), token({ roles: ['admin'], sub: 'dashboard-bot' })]);
  });

  it('runs listed operations by id and by their exact text', async () => {
    const create = await post(bound, { extensions: byId(listed('CreateQueryTemplate')), variables: { input: { name: 'Bound one', queryType: 'SQL', query: SQL_QUERY } } }, manager);
    expect({ status: create.status, errors: create.body.errors }).toEqual({ status: 200, errors: undefined });
    const read = await post(bound, { query: listed('GetQueryTemplate').body, variables: { id: 'bound_one' } }, manager);
    expect(read.body.data.template.name).toBe('Bound one');
  });

  it('recognises a listed operation sent in another layout: spacing, comments, fragment order, other operations beside it', async () => {
    const original = listed('GetQueryTemplate').body;
    const [operation, fragment] = original.split('\n\nfragment');
    const relaid = `# my copy\nfragment${fragment!.replace(/\n\s*/g, ' ')}\n\n${operation!.replace(/\n\s*/g, '  ')}\nquery Other { version }`;
    expect(relaid).not.toBe(original);
    const response = await post(bound, { query: relaid, operationName: 'GetQueryTemplate', variables: { id: 'bound_one' } }, manager);
    expect({ status: response.status, errors: response.body.errors, name: response.body.data?.template?.name }).toEqual({ status: 200, errors: undefined, name: 'Bound one' });
  });

  it('refuses text that is not on the list with 403 PERSISTED_OPERATION_REQUIRED, before running anything', async () => {
    const refusedCases = [
      { query: UNLISTED },
      // A listed operation with one more field is another operation.
      { query: listed('GetQueryTemplate').body.replace('  name\n', '  name\n  __typename\n'), variables: { id: 'bound_one' } },
      // The unlisted one of a document whose other operation is listed.
      { query: `${listed('GetGatewayVersion').body}\n${UNLISTED}`, operationName: 'Mine' },
      { query: '{ __schema { types { name } } }' },
      { query: 'mutation Sneaky($input: CreateQueryTemplateInput!) { createTemplate(input: $input) { message } }', variables: { input: { name: 'Sneaky', queryType: 'SQL', query: SQL_QUERY } } },
    ];
    for (const body of refusedCases) {
      const response = await post(bound, body, manager);
      expect({ status: response.status, data: response.body.data, codes: response.body.errors?.map((error: { extensions: { code: string } }) => error.extensions.code) }).toEqual({
        status: 403,
        data: undefined,
        codes: ['PERSISTED_OPERATION_REQUIRED'],
      });
      expect(response.body.errors[0].message).toMatch(/allow list .*graphql\/operations/);
    }
    const sneaky = await bound.sql('SELECT 1 FROM query_templates WHERE template_id = $1', ['sneaky']);
    expect(sneaky.rowCount).toBe(0);
  });

  it('binds a caller by its id too (caller:dashboard-bot), whatever its roles', async () => {
    const refused = await post(bound, { query: UNLISTED }, bot);
    expect(refused.status).toBe(403);
    const allowed = await post(bound, { extensions: byId(listed('GetGatewayVersion')) }, bot);
    expect(allowed.body).toEqual({ data: { version: expect.any(String) }, extensions: { cost: 1 } });
  });

  it('does not bind callers outside the list of roles and ids', async () => {
    const response = await post(bound, { query: UNLISTED }, admin);
    expect({ status: response.status, errors: response.body.errors }).toEqual({ status: 200, errors: undefined });
  });

  it('keeps REST working for a bound caller: REST runs its own fixed operations', async () => {
    const response = await bound.http.post('/v2/template/list').set('authorization', `Bearer ${manager}`).send(envelope('api.query.template.list', {}));
    expect(response.status).toBe(200);
    expect(response.body.result.map((template: { template_id: string }) => template.template_id)).toContain('bound_one');
  });
});
