// Connectors over the REST compatibility layer: what only REST has. The behaviour both transports
// share is in test/contract/connectors.ts (hostile archives: test/contract/connector-archives.ts);
// here are limit/offset pages, the request schema's refusals, the mode parameter of a read, the
// envelope of a registration and its file part, and requests that are not one file.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { expectFailure as expectRefusal, restOutcome } from '../contract/harness.js';
import { distributionTarGz } from '../support/archives.js';
import { envelope } from '../support/api.js';
import { insertConnector, registerOverRest, registrySnapshot, startStoreGateway, type StoreGateway } from '../support/connectors.js';

let gw: StoreGateway;
beforeAll(async () => {
  gw = await startStoreGateway();
});
afterAll(async () => {
  await gw?.stop();
});

type ConnectorRecord = { id: string; status: string };

function list(request?: Record<string, unknown>): Promise<Response> {
  return gw.http.post('/v2/connectors/list').send(envelope('api.connectors.list', request));
}

async function listOk(request?: Record<string, unknown>): Promise<{ data: ConnectorRecord[]; count: number }> {
  const response = await list(request);
  expect(response.status).toBe(200);
  return response.body.result as { data: ConnectorRecord[]; count: number };
}

function read(id: string, mode: string): Promise<Response> {
  return gw.http.get(`/v2/connectors/read/${encodeURIComponent(id)}?mode=${encodeURIComponent(mode)}`);
}

/** A failure with this HTTP status and code (restOutcome checks the rest of the envelope). */
function expectFailure(response: Response, status: number, code: string, message: RegExp): void {
  expect(response.status).toBe(status);
  expectRefusal(restOutcome(response), code, message);
}

describe('POST /v2/connectors/list', () => {
  it('pages with limit and offset while count stays the total', async () => {
    const all = await listOk();
    const page = await listOk({ limit: 2, offset: 1 });
    expect(page.count).toBe(all.count);
    expect(page.data.map((connector) => connector.id)).toEqual(all.data.slice(1, 3).map((connector) => connector.id));
  });

  // The service's rule since issue 34 (the REST schema held it before): the same message GraphQL gets.
  it('returns 400 CONNECTORS_LIST_INPUT_INVALID when filters.status is empty, naming the path', async () => {
    const response = await list({ filters: { status: [] } });
    expectFailure(response, 400, 'CONNECTORS_LIST_INPUT_INVALID', /^filters\.status must have at least one item$/);
  });

  it('returns 400 CONNECTORS_LIST_INPUT_INVALID for an unknown status, category or filter key', async () => {
    expectFailure(await list({ filters: { status: ['Published'] } }), 400, 'CONNECTORS_LIST_INPUT_INVALID', /status.*enum/);
    expectFailure(await list({ filters: { category: ['Spreadsheet'] } }), 400, 'CONNECTORS_LIST_INPUT_INVALID', /category.*enum/);
    expectFailure(await list({ filters: { owner: 'me' } }), 400, 'CONNECTORS_LIST_INPUT_INVALID', /'owner'/);
  });
});

describe('GET /v2/connectors/read/:id', () => {
  it('reads the Draft version with mode=edit in any case, and the Live one with an empty mode', async () => {
    const draft = await insertConnector(gw, 'read-draft', '0.2.0', 'Draft');
    const edit = await read(draft, 'EDIT');
    expect(edit.status).toBe(200);
    expect(edit.body.result.status).toBe('Draft');
    const live = await read('postgres-connector-1.0.0', '');
    expect(live.status).toBe(200);
    expect(live.body.result.status).toBe('Live');
  });
});

describe('POST /v2/connector/register', () => {
  it('answers {message} in the envelope of api.connector.register, without a msgid', async () => {
    const response = await registerOverRest(gw, distributionTarGz({ id: 'rest-pg' }), 'rest-pg-1.0.0.tar.gz');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 'api.connector.register', ver: 'v2', responseCode: 'OK', params: { status: 'SUCCESS' } });
    expect(response.body.params.msgid).toBeUndefined();
    expect(response.body.result).toEqual({ message: 'connector registered successfully.' });
  });

  it('accepts the distribution in any part name', async () => {
    const response = await registerOverRest(gw, distributionTarGz({ id: 'rest-any-part' }), 'dist.tgz', 'distribution');
    expect(response.status).toBe(200);
    const read = await gw.http.get('/v2/connectors/read/rest-any-part-1.0.0');
    expect(read.body.result.status).toBe('Live');
  });

  describe('a request that is not one file: 400 FAILED_TO_UPLOAD and nothing changes', () => {
    it('refuses a multipart body without a file part', async () => {
      const registry = await registrySnapshot(gw);
      const response = await gw.http.post('/v2/connector/register').field('note', 'no file here');
      expectFailure(response, 400, 'FAILED_TO_UPLOAD', /one file part/);
      expect(await registrySnapshot(gw)).toEqual(registry);
    });

    it('refuses a JSON body', async () => {
      const response = await gw.http.post('/v2/connector/register').send({ request: {} });
      expectFailure(response, 400, 'FAILED_TO_UPLOAD', /multipart\/form-data/);
    });

    it('refuses two files, as the original does', async () => {
      const registry = await registrySnapshot(gw);
      const response = await gw.http
        .post('/v2/connector/register')
        .attach('file3', distributionTarGz({ id: 'rest-two-a' }), 'a.tar.gz')
        .attach('file4', distributionTarGz({ id: 'rest-two-b' }), 'b.tar.gz');
      expectFailure(response, 400, 'FAILED_TO_UPLOAD', /^Uploading multiple files are not allowed$/);
      expect(await registrySnapshot(gw)).toEqual(registry);
    });
  });
});
