// Malformed, mistyped, oversized and unexpected input on every query-template endpoint: each is
// refused with the contract's failure envelope (never a 500), and nothing reaches the database.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope, ISO_WITH_OFFSET, SQL_QUERY, UUID_PATTERN } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
/** The table as the tests found it, to prove a refused request wrote nothing. */
let baseline: unknown[];

const SEED_ID = 'seed_template';
const TABLE_SNAPSHOT = 'SELECT template_id, template_name, query, query_type, created_by, updated_by, created_date::text, updated_date::text FROM query_templates ORDER BY template_id';

beforeAll(async () => {
  gw = await startTestGateway();
  const seeded = await gw.http.post('/v2/template/create').send(envelope('api.query.template.create', { template_name: 'Seed Template', query_type: 'sql', query: SQL_QUERY }));
  expect(seeded.status).toBe(200);
  baseline = (await gw.sql(TABLE_SNAPSHOT)).rows;
  expect(baseline).toHaveLength(1);
});
afterAll(async () => {
  await gw?.stop();
});

interface Endpoint {
  label: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: (id?: string) => string;
  apiId: string;
  code: string;
}

const CREATE: Endpoint = {
  label: 'create',
  method: 'post',
  path: () => '/v2/template/create',
  apiId: 'api.query.template.create',
  code: 'QUERY_TEMPLATE_INVALID',
};
const LIST: Endpoint = {
  label: 'list',
  method: 'post',
  path: () => '/v2/template/list',
  apiId: 'api.query.template.list',
  code: 'QUERY_TEMPLATE_INVALID_INPUT',
};
const UPDATE: Endpoint = {
  label: 'update',
  method: 'patch',
  path: (id = SEED_ID) => `/v2/template/update/${id}`,
  apiId: 'api.query.template.update',
  code: 'QUERY_TEMPLATE_INVALID_INPUT',
};
const READ: Endpoint = {
  label: 'read',
  method: 'get',
  path: (id = SEED_ID) => `/v2/template/read/${id}`,
  apiId: 'api.query.template.read',
  code: 'QUERY_TEMPLATE_INVALID_INPUT',
};
const DELETE: Endpoint = {
  label: 'delete',
  method: 'delete',
  path: (id = SEED_ID) => `/v2/template/delete/${id}`,
  apiId: 'api.query.template.delete',
  code: 'QUERY_TEMPLATE_INVALID_INPUT',
};

const BODY_ENDPOINTS = [CREATE, LIST, UPDATE];
const PATH_ENDPOINTS = [READ, UPDATE, DELETE];

/** A valid `request` for each body endpoint, for cases that break one thing only. */
const VALID_REQUEST: Record<string, Record<string, unknown>> = {
  create: { template_name: 'Brand New', query_type: 'sql', query: SQL_QUERY },
  list: { filters: { query_type: 'sql' } },
  update: { template_name: 'Renamed Seed' },
};

function call(endpoint: Endpoint, id?: string) {
  return gw.http[endpoint.method](endpoint.path(id));
}

/** Sends `body` as JSON text exactly as given (so `{bad`, `null`, `5` go out untouched). */
function sendRaw(endpoint: Endpoint, text: string, id?: string) {
  return call(endpoint, id).set('content-type', 'application/json').send(text);
}

function sendJson(endpoint: Endpoint, body: object, id?: string) {
  return call(endpoint, id).send(body);
}

/** The body of `endpoint` with a valid envelope and request, then `change` applied. */
function validBody(endpoint: Endpoint, change: (body: Record<string, any>) => void = () => undefined): Record<string, any> {
  const body: Record<string, any> = envelope(endpoint.apiId, structuredClone(VALID_REQUEST[endpoint.label]));
  change(body);
  return body;
}

async function expectNothingWritten(): Promise<void> {
  expect((await gw.sql<{ count: string }>('SELECT count(*) FROM query_templates')).rows[0]!.count).toBe('1');
  expect((await gw.sql(TABLE_SNAPSHOT)).rows).toEqual(baseline);
}

/** The contract's failure envelope for a refused input, with the endpoint's id and code. */
async function expectRefused(response: Response, endpoint: Endpoint, message: string | RegExp, msgid?: string): Promise<void> {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status: 400, code: endpoint.code });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual(['error', 'id', 'params', 'responseCode', 'result', 'ts', 'ver']);
  expect(response.body).toMatchObject({ id: endpoint.apiId, ver: 'v2', responseCode: 'BAD_REQUEST', result: {} });
  expect(response.body.result).toEqual({});
  expect(response.body.ts).toMatch(ISO_WITH_OFFSET);
  expect(response.body.params.status).toBe('FAILED');
  expect(response.body.params.resmsgid).toMatch(UUID_PATTERN);
  if (msgid === undefined) expect(response.body.params).not.toHaveProperty('msgid');
  else expect(response.body.params.msgid).toBe(msgid);
  expect(Object.keys(response.body.error).sort()).toEqual(['code', 'message', 'trace']);
  expect(response.body.error.trace).toBe('');
  if (typeof message === 'string') expect(response.body.error.message).toBe(message);
  else expect(response.body.error.message).toMatch(message);
  // No stack trace or internals leak into the message.
  expect(response.body.error.message).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
  await expectNothingWritten();
}

describe('a body that is not JSON', () => {
  it.each(BODY_ENDPOINTS)('is refused by $label with 400 and a message saying the body is not valid JSON', async (endpoint) => {
    const response = await sendRaw(endpoint, '{bad');
    await expectRefused(response, endpoint, /^the request body is not valid JSON/);
  });
});

describe('a missing body', () => {
  it.each([CREATE, UPDATE])('is refused by $label with a message naming the required request', async (endpoint) => {
    const response = await call(endpoint);
    await expectRefused(response, endpoint, "#required must have required property 'request'");
  });

  it.each([CREATE, UPDATE])('is refused by $label when the envelope has no request', async (endpoint) => {
    const response = await sendJson(endpoint, envelope(endpoint.apiId));
    await expectRefused(response, endpoint, "#required must have required property 'request'", 'test-msg-1');
  });

  it('is accepted by list, which then lists every template', async () => {
    const response = await call(LIST);
    expect(response.status).toBe(200);
    expect(response.body.result.map((t: { template_id: string }) => t.template_id)).toEqual([SEED_ID]);
  });
});

describe('a required field left out', () => {
  it.each(['template_name', 'query_type', 'query'])('is refused by create, naming the missing %s', async (field) => {
    const response = await sendJson(
      CREATE,
      validBody(CREATE, (body) => delete body.request[field]),
    );
    await expectRefused(response, CREATE, `#properties/request/required must have required property '${field}'`, 'test-msg-1');
  });
});

describe('a field of the wrong type', () => {
  it.each([CREATE, UPDATE])('is refused by $label when template_name is a number', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => (body.request.template_name = 5)),
    );
    await expectRefused(response, endpoint, '#properties/request/properties/template_name/type must be string at /request/template_name', 'test-msg-1');
  });

  it.each([CREATE, UPDATE])('is refused by $label when query_type is a boolean', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => Object.assign(body.request, { query_type: true, query: SQL_QUERY })),
    );
    await expectRefused(response, endpoint, '#properties/request/properties/query_type/type must be string at /request/query_type', 'test-msg-1');
  });

  it.each([CREATE, UPDATE])('is refused by $label when query_type is not sql or json', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => Object.assign(body.request, { query_type: 'csv', query: SQL_QUERY })),
    );
    await expectRefused(response, endpoint, '#properties/request/properties/query_type/enum must be equal to one of the allowed values (sql, json) at /request/query_type', 'test-msg-1');
  });

  it('is refused by list when sortBy is a string', async () => {
    const response = await sendJson(
      LIST,
      validBody(LIST, (body) => (body.request.sortBy = 'x')),
    );
    await expectRefused(response, LIST, '#properties/request/properties/sortBy/type must be array at /request/sortBy', 'test-msg-1');
  });

  it('is refused by list when a sortBy field is not a sortable column', async () => {
    const response = await sendJson(
      LIST,
      validBody(LIST, (body) => (body.request.sortBy = [{ field: 'colour', order: 'asc' }])),
    );
    await expectRefused(
      response,
      LIST,
      /^#properties\/request\/properties\/sortBy\/items\/properties\/field\/enum must be equal to one of the allowed values \(.*created_date.*\) at \/request\/sortBy\/0\/field$/,
      'test-msg-1',
    );
  });

  it('is refused by list when the query_type filter is a boolean', async () => {
    const response = await sendJson(
      LIST,
      validBody(LIST, (body) => (body.request.filters = { query_type: true })),
    );
    await expectRefused(response, LIST, '#properties/request/properties/filters/properties/query_type/type must be string at /request/filters/query_type', 'test-msg-1');
  });

  it.each(BODY_ENDPOINTS)('is refused by $label when request is a string', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => (body.request = 'everything')),
    );
    await expectRefused(response, endpoint, '#properties/request/type must be object at /request', 'test-msg-1');
  });

  it.each(BODY_ENDPOINTS)('is refused by $label when msgid is a number, and no msgid is echoed', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => (body.params.msgid = 42)),
    );
    await expectRefused(response, endpoint, '#properties/params/properties/msgid/type must be string at /params/msgid');
  });
});

describe('an unknown field', () => {
  it.each(BODY_ENDPOINTS)('is refused by $label at the top level of the envelope', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => (body.extra = 1)),
    );
    await expectRefused(response, endpoint, "#additionalProperties must NOT have additional properties: 'extra'", 'test-msg-1');
  });

  it.each(BODY_ENDPOINTS)('is refused by $label inside request', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => (body.request.colour = 'blue')),
    );
    await expectRefused(response, endpoint, "#properties/request/additionalProperties must NOT have additional properties: 'colour'", 'test-msg-1');
  });

  it.each(BODY_ENDPOINTS)('is refused by $label inside params', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => (body.params.status = 'SUCCESS')),
    );
    await expectRefused(response, endpoint, "#properties/params/additionalProperties must NOT have additional properties: 'status'", 'test-msg-1');
  });
});

describe('an envelope id of another API', () => {
  it.each(BODY_ENDPOINTS)('is refused by $label, which still answers with its own API id', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => (body.id = 'api.dataset.create')),
    );
    await expectRefused(response, endpoint, `#properties/id/const must be equal to constant ("${endpoint.apiId}") at /id`, 'test-msg-1');
  });
});

describe('oversized input', () => {
  it.each(BODY_ENDPOINTS)('a body over the 1 MB limit is refused by $label with a message about its size', async (endpoint) => {
    const body = validBody(endpoint, (b) => (b.request.padding = 'x'.repeat(1024 * 1024)));
    const response = await sendJson(endpoint, body);
    await expectRefused(response, endpoint, /larger than the 1048576-byte limit \(REQUEST_BODY_LIMIT=1mb\); send a smaller body or raise REQUEST_BODY_LIMIT$/);
  });

  // The name's length is the service's rule, with the contract's wording (4.3), the same on GraphQL.
  it.each([CREATE, UPDATE])('a 200 kB template_name is refused by $label, naming the name rule and its length', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => (body.request.template_name = 'a'.repeat(200 * 1024))),
    );
    await expectRefused(response, endpoint, 'Template name should contain alphanumeric characters and single space between characters (at most 100 characters)', 'test-msg-1');
  });

  // The id's length is the service's rule (both transports, test/contract/templates.ts), no longer the path schema's.
  it.each(PATH_ENDPOINTS)('a template id of 500 characters in the path is refused by $label, naming its length and the limit', async (endpoint) => {
    const response = await (endpoint === UPDATE ? sendJson(endpoint, validBody(endpoint), 'a'.repeat(500)) : call(endpoint, 'a'.repeat(500)));
    await expectRefused(response, endpoint, 'template_id is 500 characters long; at most 120 are allowed', endpoint === UPDATE ? 'test-msg-1' : undefined);
  });
});

describe('a template name with two spaces in a row', () => {
  const RULE = 'Template name should contain alphanumeric characters and single space between characters';

  it.each([CREATE, UPDATE])('is refused by $label with the template name rule', async (endpoint) => {
    const response = await sendJson(
      endpoint,
      validBody(endpoint, (body) => (body.request.template_name = 'Two  Spaces')),
    );
    await expectRefused(response, endpoint, RULE, 'test-msg-1');
  });
});

describe('a whole body that is not an object', () => {
  it.each(
    BODY_ENDPOINTS.flatMap((endpoint) => [
      { endpoint, label: endpoint.label, kind: 'null', text: 'null' },
      { endpoint, label: endpoint.label, kind: 'an array', text: '[{"request":{}}]' },
      { endpoint, label: endpoint.label, kind: 'a number', text: '5' },
      { endpoint, label: endpoint.label, kind: 'a string', text: '"request"' },
    ]),
  )('$label refuses $kind as the body', async ({ endpoint, text }) => {
    const response = await sendRaw(endpoint, text);
    await expectRefused(response, endpoint, '#type must be object');
  });
});

describe('a route the gateway does not have', () => {
  function expectRouteNotFound(response: Response, method: string, path: string): void {
    expect(response.status).toBe(404);
    expect(Object.keys(response.body).sort()).toEqual(['error', 'id', 'params', 'responseCode', 'result', 'ts', 'ver']);
    expect(response.body).toMatchObject({
      id: 'api',
      ver: 'v2',
      params: { status: 'FAILED' },
      responseCode: 'NOT_FOUND',
      error: { code: 'ROUTE_NOT_FOUND', message: `Route not found: ${method} ${path}`, trace: '' },
      result: {},
    });
    expect(response.body.params.resmsgid).toMatch(UUID_PATTERN);
    // Every REST answer, a failure too, ends its line.
    expect(response.text.slice(-2)).toBe('}\n');
  }

  it('answers GET /v2/nope with 404 ROUTE_NOT_FOUND and id "api"', async () => {
    expectRouteNotFound(await gw.http.get('/v2/nope'), 'GET', '/v2/nope');
  });

  it('answers POST /v2/nope with a body with 404 ROUTE_NOT_FOUND, not a validation error', async () => {
    const response = await gw.http.post('/v2/nope?x=1').send(envelope('api.nope', {}));
    expectRouteNotFound(response, 'POST', '/v2/nope');
    await expectNothingWritten();
  });

  it('answers a known path with the wrong method with 405 METHOD_NOT_ALLOWED, the methods it takes in Allow', async () => {
    const response = await gw.http.get('/v2/template/create');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.text.slice(-2)).toBe('}\n');
    expect(Object.keys(response.body).sort()).toEqual(['error', 'id', 'params', 'responseCode', 'result', 'ts', 'ver']);
    expect(response.body).toMatchObject({
      id: 'api',
      params: { status: 'FAILED' },
      responseCode: 'BAD_REQUEST',
      error: { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed: GET /v2/template/create; this route takes POST', trace: '' },
      result: {},
    });
  });

  it('names every method a path takes in Allow, when several routes share it', async () => {
    // GET reads a dataset at /v2/datasets/read/:id; DELETE is not served there.
    const response = await gw.http.delete('/v2/datasets/read/some-dataset');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
    await expectNothingWritten();
  });

  it('answers an unknown alerting path with 404 ROUTE_NOT_FOUND', async () => {
    expectRouteNotFound(await gw.http.get('/alerts/v1/nope'), 'GET', '/alerts/v1/nope');
  });

  it('matches a path in any case and with a trailing slash, and decodes its parameter, as express did', async () => {
    for (const path of ['/V2/Template/READ/no-such-template', '/v2/template/read/no-such-template/']) {
      const response = await gw.http.get(path);
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ code: 'QUERY_TEMPLATE_NOT_EXISTS', message: 'Template no-such-template does not exist' });
    }
    // %2F is a slash inside the one parameter, not a second segment.
    expect((await gw.http.get('/v2/template/read/a%2Fb')).body.error.message).toBe('Template a/b does not exist');
    // An empty parameter, or doubled slashes, name no entry.
    expectRouteNotFound(await gw.http.get('/v2/template/read/'), 'GET', '/v2/template/read/');
    expectRouteNotFound(await gw.http.get('//v2//template/read/x'), 'GET', '//v2//template/read/x');
  });

  it('refuses a parameter that is not valid percent-encoding with 400, naming it', async () => {
    const response = await gw.http.get('/v2/template/read/%E0%A4%A');
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'INVALID_INPUT', message: "The request could not be read: Failed to decode param '%E0%A4%A'" });
  });

  it('answers HEAD on a GET entry as the GET, without a body, and OPTIONS with the methods a path takes', async () => {
    const head = await gw.http.head('/v2/template/read/no-such-template');
    expect(head.status).toBe(404);
    expect(head.headers['content-type']).toMatch(/^application\/json/);
    expect(head.text ?? '').toBe('');
    const options = await gw.http.options('/v2/datasets/read/some-dataset');
    expect(options.status).toBe(200);
    expect(options.headers.allow).toBe('GET, HEAD');
    expect(options.text).toBe('GET, HEAD');
    expectRouteNotFound(await gw.http.options('/v2/nope'), 'OPTIONS', '/v2/nope');
  });
});
