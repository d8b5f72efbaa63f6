import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import pg from 'pg';
import supertest, { type Response } from 'supertest';
import { restErrorHandler } from '../../rest/router.js';
import { GENERIC_FAILURE_MESSAGE } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { envelope, ISO_WITH_OFFSET, SQL_QUERY, UUID_PATTERN } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
// Node 20's default agent keeps connections alive already; an explicit keep-alive agent makes the
// Connection / Keep-Alive assertions independent of that default.
const keepAliveAgent = new http.Agent({ keepAlive: true });

beforeAll(async () => {
  gw = await startTestGateway();
  // One template every read/update/delete below can find.
  const seeded = await gw.http.post('/v2/template/create').send(envelope('api.query.template.create', { template_name: 'Existing Template', query_type: 'sql', query: SQL_QUERY }));
  expect(seeded.status).toBe(200);
});
afterAll(async () => {
  keepAliveAgent.destroy();
  await gw?.stop();
});

const SUCCESS_KEYS = ['id', 'params', 'responseCode', 'result', 'ts', 'ver'];
const FAILURE_KEYS = ['error', 'id', 'params', 'responseCode', 'result', 'ts', 'ver'];

function create(name: string, msgid?: string) {
  const body = envelope('api.query.template.create', { template_name: name, query_type: 'sql', query: SQL_QUERY }, msgid);
  return gw.http.post('/v2/template/create').send(body);
}

/** Asserts the envelope a failure must have, whatever the failure. */
function expectFailureEnvelope(response: Response, apiId: string, status: number, responseCode: string, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual(FAILURE_KEYS);
  expect(response.body).toMatchObject({ id: apiId, ver: 'v2', responseCode, params: { status: 'FAILED' }, result: {} });
  expect(response.body.result).toEqual({});
  expect(Object.keys(response.body.error).sort()).toEqual(['code', 'message', 'trace']);
  expect(response.body.error.code).toBe(code);
  expect(typeof response.body.error.message).toBe('string');
  expect(response.body.error.message.length).toBeGreaterThan(0);
  expect(response.body.error.trace).toBe('');
  expect(response.body.ts).toMatch(ISO_WITH_OFFSET);
  expect(response.body.params.resmsgid).toMatch(UUID_PATTERN);
}

describe('the REST envelope', () => {
  it('answers a success with every envelope field, the msgid echoed and a fresh resmsgid', async () => {
    const response = await gw.http.post('/v2/template/create').send(envelope('api.query.template.create', { template_name: 'Envelope One', query_type: 'sql', query: SQL_QUERY }, 'msg-42'));
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(SUCCESS_KEYS);
    expect(response.body).toMatchObject({
      id: 'api.query.template.create',
      ver: 'v2',
      responseCode: 'OK',
      params: { status: 'SUCCESS', msgid: 'msg-42' },
      result: { template_id: 'envelope_one', template_name: 'Envelope One', message: 'The query template has been saved successfully' },
    });
    expect(response.body.ts).toMatch(ISO_WITH_OFFSET);
    expect(response.body.params.resmsgid).toMatch(UUID_PATTERN);
  });

  it('gives params exactly status, msgid and resmsgid on success', async () => {
    const response = await create('Params Keys', 'msg-keys');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.params).sort()).toEqual(['msgid', 'resmsgid', 'status']);
  });

  it('answers with the API id of the endpoint called, not the id the request carried', async () => {
    const calls: [string, () => Promise<Response>][] = [
      ['api.query.template.read', () => gw.http.get('/v2/template/read/existing_template')],
      ['api.query.template.list', () => gw.http.post('/v2/template/list').send({ request: {} })],
      ['api.query.template.update', () => gw.http.patch('/v2/template/update/existing_template').send({ ver: 'v2', params: { msgid: 'u1' }, request: { template_name: 'Existing Template' } })],
      ['api.query.template.create', () => create('Api Id Check')],
      ['api.query.template.delete', () => gw.http.delete('/v2/template/delete/api_id_check')],
    ];
    for (const [apiId, call] of calls) {
      const response = await call();
      expect({ apiId, status: response.status }).toEqual({ apiId, status: 200 });
      expect(response.body.id).toBe(apiId);
      expect(response.body.responseCode).toBe('OK');
      expect(response.body.params.status).toBe('SUCCESS');
    }
  });

  it('answers ver "v2" whatever version text the request carried', async () => {
    const body = { ...envelope('api.query.template.list', {}), ver: 'v1' };
    const response = await gw.http.post('/v2/template/list').send(body);
    expect(response.status).toBe(200);
    expect(response.body.ver).toBe('v2');
  });

  it('stamps ts with the current time as ISO 8601 with a numeric offset', async () => {
    const before = Date.now();
    const response = await gw.http.get('/v2/template/read/existing_template');
    const after = Date.now();
    expect(response.body.ts).toMatch(ISO_WITH_OFFSET);
    const stamped = Date.parse(response.body.ts);
    // The timestamp has whole seconds: allow the second it was truncated to.
    expect(stamped).toBeGreaterThanOrEqual(before - 1_000);
    expect(stamped).toBeLessThanOrEqual(after + 1_000);
  });

  it('leaves msgid out when the request had no params', async () => {
    const response = await gw.http.post('/v2/template/list').send({ id: 'api.query.template.list', ver: 'v2', request: {} });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.params).sort()).toEqual(['resmsgid', 'status']);
  });

  it('leaves msgid out when the request had an empty msgid', async () => {
    const response = await gw.http.post('/v2/template/list').send(envelope('api.query.template.list', {}, ''));
    expect(response.status).toBe(200);
    expect(response.body.params).not.toHaveProperty('msgid');
    expect(Object.keys(response.body.params).sort()).toEqual(['resmsgid', 'status']);
  });

  it('leaves msgid out of a GET that has no body at all', async () => {
    const response = await gw.http.get('/v2/template/read/existing_template');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.params).sort()).toEqual(['resmsgid', 'status']);
  });

  it('gives every response its own resmsgid, even for identical requests', async () => {
    const body = envelope('api.query.template.list', {}, 'same-msg');
    const first = await gw.http.post('/v2/template/list').send(body);
    const second = await gw.http.post('/v2/template/list').send(body);
    expect(first.body.params.resmsgid).toMatch(UUID_PATTERN);
    expect(second.body.params.resmsgid).toMatch(UUID_PATTERN);
    expect(first.body.params.resmsgid).not.toBe(second.body.params.resmsgid);
    expect(first.body.params.msgid).toBe('same-msg');
    expect(second.body.params.msgid).toBe('same-msg');
    // resmsgid is the response's id, never the caller's msgid.
    expect(first.body.params.resmsgid).not.toBe('same-msg');
  });

  it('returns the list result as an array and the read result as the template record', async () => {
    const list = await gw.http.post('/v2/template/list').send(envelope('api.query.template.list', {}));
    expect(Array.isArray(list.body.result)).toBe(true);
    expect(list.body.result.map((t: { template_id: string }) => t.template_id)).toContain('existing_template');

    const read = await gw.http.get('/v2/template/read/existing_template');
    expect(Object.keys(read.body.result).sort()).toEqual(['created_by', 'created_date', 'query', 'query_type', 'template_id', 'template_name', 'updated_by', 'updated_date'].sort());
    expect(read.body.result).toMatchObject({ template_id: 'existing_template', template_name: 'Existing Template', query_type: 'sql', query: SQL_QUERY });
  });
});

describe('the REST failure envelope', () => {
  it('answers a validation failure with error {code, message, trace: ""}, result {} and the msgid echoed', async () => {
    const response = await gw.http.post('/v2/template/create').send(envelope('api.query.template.create', { template_name: 'No Query', query_type: 'sql' }, 'msg-fail-1'));
    expectFailureEnvelope(response, 'api.query.template.create', 400, 'BAD_REQUEST', 'QUERY_TEMPLATE_INVALID');
    expect(response.body.error.message).toBe("#properties/request/required must have required property 'query'");
    expect(response.body.params.msgid).toBe('msg-fail-1');
    expect(Object.keys(response.body.params).sort()).toEqual(['msgid', 'resmsgid', 'status']);
  });

  it('leaves msgid out of a failure when the request carried none', async () => {
    const response = await gw.http.post('/v2/template/create').send({ request: { template_name: 'No Query', query_type: 'sql' } });
    expectFailureEnvelope(response, 'api.query.template.create', 400, 'BAD_REQUEST', 'QUERY_TEMPLATE_INVALID');
    expect(Object.keys(response.body.params).sort()).toEqual(['resmsgid', 'status']);
  });

  it('answers a template that lacks its placeholders with 400 QUERY_TEMPLATE_INVALID', async () => {
    const response = await gw.http.post('/v2/template/create').send(envelope('api.query.template.create', { template_name: 'No Placeholders', query_type: 'sql', query: 'SELECT 1' }));
    expectFailureEnvelope(response, 'api.query.template.create', 400, 'BAD_REQUEST', 'QUERY_TEMPLATE_INVALID');
  });

  it('answers a read of a missing template with 404 NOT_FOUND / QUERY_TEMPLATE_NOT_EXISTS', async () => {
    const response = await gw.http.get('/v2/template/read/no_such_template');
    expectFailureEnvelope(response, 'api.query.template.read', 404, 'NOT_FOUND', 'QUERY_TEMPLATE_NOT_EXISTS');
    expect(response.body.error.message).toContain('no_such_template');
  });

  it('answers a delete of a missing template with 404 NOT_FOUND / QUERY_TEMPLATE_NOT_EXISTS', async () => {
    const response = await gw.http.delete('/v2/template/delete/no_such_template');
    expectFailureEnvelope(response, 'api.query.template.delete', 404, 'NOT_FOUND', 'QUERY_TEMPLATE_NOT_EXISTS');
  });

  it('answers a second create of the same name with 409 CONFLICT / QUERY_TEMPLATE_ALREADY_EXISTS', async () => {
    const response = await create('Existing Template', 'msg-dup');
    expectFailureEnvelope(response, 'api.query.template.create', 409, 'CONFLICT', 'QUERY_TEMPLATE_ALREADY_EXISTS');
    expect(response.body.params.msgid).toBe('msg-dup');
  });

  it('answers a rename to a taken name in another case with 409 CONFLICT / QUERY_TEMPLATE_ALREADY_EXISTS', async () => {
    expect((await create('Rename Source')).status).toBe(200);
    const response = await gw.http.patch('/v2/template/update/rename_source').send(envelope('api.query.template.update', { template_name: 'EXISTING TEMPLATE' }));
    expectFailureEnvelope(response, 'api.query.template.update', 409, 'CONFLICT', 'QUERY_TEMPLATE_ALREADY_EXISTS');
  });

  it('answers a create that races another writer of the same name with 409 QUERY_TEMPLATE_ALREADY_EXISTS, not a 500', async () => {
    // Another writer holds the name uncommitted: the create's look finds nothing, its insert waits on
    // the unique index, and meets the violation once the other commits.
    const other = new pg.Client({ connectionString: gw.databaseUrl });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(
        `INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by) VALUES ('racing_template', 'Racing Template', $1, 'sql', 'other', 'other')`,
        [SQL_QUERY],
      );
      const pending = create('Racing Template', 'msg-race').then((response) => response);
      const waiting = async () => (await gw.sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO query_templates%'`)).rows[0]?.n;
      for (let tries = 0; (await waiting()) === 0; tries += 1) {
        if (tries > 200) throw new Error("the gateway's insert never waited on the other writer's row");
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await other.query('COMMIT');
      const response = await pending;
      expectFailureEnvelope(response, 'api.query.template.create', 409, 'CONFLICT', 'QUERY_TEMPLATE_ALREADY_EXISTS');
      expect(response.body.error.message).toContain('Racing Template');
    } finally {
      await other.end();
    }
  });

  it('answers an update with query but no query_type with 400 QUERY_TEMPLATE_INVALID_INPUT', async () => {
    const response = await gw.http.patch('/v2/template/update/existing_template').send(envelope('api.query.template.update', { query: SQL_QUERY }));
    expectFailureEnvelope(response, 'api.query.template.update', 400, 'BAD_REQUEST', 'QUERY_TEMPLATE_INVALID_INPUT');
  });

  it('answers with the endpoint API id even when the request carried another one', async () => {
    const body = { ...envelope('api.query.template.list', {}), id: 'api.dataset.list' };
    const response = await gw.http.post('/v2/template/list').send(body);
    expectFailureEnvelope(response, 'api.query.template.list', 400, 'BAD_REQUEST', 'QUERY_TEMPLATE_INVALID_INPUT');
    expect(response.body.id).not.toBe('api.dataset.list');
  });

  it('gives failures their own resmsgid each time', async () => {
    const first = await gw.http.get('/v2/template/read/missing_one');
    const second = await gw.http.get('/v2/template/read/missing_one');
    expect(first.body.params.resmsgid).toMatch(UUID_PATTERN);
    expect(first.body.params.resmsgid).not.toBe(second.body.params.resmsgid);
  });
});

describe('the last-resort error handler', () => {
  it('answers an error nobody expected with 500 and the generic failure envelope, without its details', async () => {
    const app = express();
    app.get('/v2/boom', () => {
      throw new Error('secret detail at /srv/gateway/src/boom.ts:12');
    });
    app.use(restErrorHandler(createLogger('silent')));
    const response = await supertest(app).get('/v2/boom');
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(response.body).sort()).toEqual(FAILURE_KEYS);
    expect(response.body).toMatchObject({
      id: 'api',
      ver: 'v2',
      params: { status: 'FAILED' },
      responseCode: 'INTERNAL_SERVER_ERROR',
      error: { code: 'INTERNAL_SERVER_ERROR', message: GENERIC_FAILURE_MESSAGE, trace: '' },
      result: {},
    });
    expect(response.body.params.resmsgid).toMatch(UUID_PATTERN);
    expect(response.text).not.toContain('secret detail');
  });
});

describe('REST response headers', () => {
  function expectContractHeaders(response: Response): void {
    expect(response.headers['content-length']).toBeDefined();
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text, 'utf8'));
    expect(response.headers.etag).toMatch(/^(W\/)?"[^"]+"$/);
    expect(response.headers.date).toBeDefined();
    expect(Number.isNaN(Date.parse(response.headers.date!))).toBe(false);
    expect(Math.abs(Date.parse(response.headers.date!) - Date.now())).toBeLessThan(60_000);
    expect(response.headers.connection).toBe('keep-alive');
    expect(response.headers['keep-alive']).toBe('timeout=5');
    expect(response.headers['x-powered-by']).toBeUndefined();
  }

  it('sends Content-Length, ETag, Date, Connection and Keep-Alive: timeout=5 on a success, and no X-Powered-By', async () => {
    const response = await gw.http.get('/v2/template/read/existing_template').agent(keepAliveAgent);
    expect(response.status).toBe(200);
    expectContractHeaders(response);
  });

  it('sends the same headers on a failure', async () => {
    const response = await gw.http.get('/v2/template/read/absent_template').agent(keepAliveAgent);
    expect(response.status).toBe(404);
    expectContractHeaders(response);
  });

  it('counts Content-Length in bytes, not characters, when the body holds non-ASCII text', async () => {
    const msgid = 'nachricht-ü-✓-報告';
    const response = await gw.http
      .post('/v2/template/list')
      .agent(keepAliveAgent)
      .send(envelope('api.query.template.list', {}, msgid));
    expect(response.status).toBe(200);
    expect(response.body.params.msgid).toBe(msgid);
    expect(Buffer.byteLength(response.text, 'utf8')).toBeGreaterThan(response.text.length);
    expectContractHeaders(response);
  });

  it('answers JSON as application/json in UTF-8', async () => {
    const response = await gw.http.get('/v2/template/read/existing_template');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('echoes the x-request-id the caller sent', async () => {
    const response = await gw.http.get('/v2/template/read/existing_template').set('x-request-id', 'caller-req-123');
    expect(response.headers['x-request-id']).toBe('caller-req-123');
  });

  it('echoes x-request-id on failures too', async () => {
    const response = await gw.http.get('/v2/template/read/nothing_here').set('x-request-id', 'caller-req-404');
    expect(response.status).toBe(404);
    expect(response.headers['x-request-id']).toBe('caller-req-404');
  });

  it('generates a UUID x-request-id when the caller sent none, a new one per request', async () => {
    const first = await gw.http.get('/v2/template/read/existing_template');
    const second = await gw.http.get('/v2/template/read/existing_template');
    expect(first.headers['x-request-id']).toMatch(UUID_PATTERN);
    expect(second.headers['x-request-id']).toMatch(UUID_PATTERN);
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
  });

  it('replaces an x-request-id that is not a plain id with a generated UUID', async () => {
    const response = await gw.http.get('/v2/template/read/existing_template').set('x-request-id', 'has spaces <and> markup');
    expect(response.headers['x-request-id']).toMatch(UUID_PATTERN);
  });
});
