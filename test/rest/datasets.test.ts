// Datasets over the REST compatibility layer: what only REST has. The behaviour both transports share
// is in test/contract/datasets.ts; here are the envelope and status codes of a refusal, the original
// spelling Retire (and Purged of the datasource list), query-string and body validation, the default fields of a Live read, the stored
// text of v1 configs in the body, and limit/offset paging. Every test uses dataset ids of its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { RECORD_FIELDS } from '../contract/datasets.js';
import { expectFailure as expectRefusal, restOutcome } from '../contract/harness.js';
import { envelope } from '../support/api.js';
import { API, definition, insertV1Live, seedDataset, storedStatuses, storedVersions, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

function read(id: string, query = ''): Promise<Response> {
  return gw.http.get(`/v2/datasets/read/${encodeURIComponent(id)}${query}`);
}

function list(request?: Json): Promise<Response> {
  return gw.http.post('/v2/datasets/list').send(envelope(API.list, request));
}

function move(id: string, status: string): Promise<Response> {
  return gw.http.post('/v2/datasets/status-transition').send(envelope(API.transition, { dataset_id: id, status }));
}

async function listOk(request?: Json): Promise<{ data: Json[]; count: number }> {
  const response = await list(request);
  expect({ status: response.status, body: response.status === 200 ? 'ok' : response.body }).toEqual({ status: 200, body: 'ok' });
  return response.body.result as { data: Json[]; count: number };
}

/** A failure with this HTTP status and code (restOutcome checks the rest of the envelope). */
function expectFailure(response: Response, status: number, code: string, message: RegExp): void {
  expect(response.status).toBe(status);
  expectRefusal(restOutcome(response), code, message);
}

describe('POST /v2/datasets/status-transition', () => {
  it('answers a refused move with 400, an empty trace and an empty result', async () => {
    await seedDataset(gw, 'draft-to-live', 'Draft');
    const response = await move('draft-to-live', 'Live');
    expectFailure(response, 400, 'DATASET_LIVE_FAILURE', /draft-to-live/);
    expect(response.body.error.trace).toBe('');
    expect(response.body.result).toEqual({});
  });

  it('accepts the original spelling Retire as an alias and stores Retired', async () => {
    await seedDataset(gw, 'retire-alias', 'Live');
    const response = await move('retire-alias', 'Retire');
    expect(response.status).toBe(200);
    expect(response.body.result.dataset_id).toBe('retire-alias');
    expect(response.body.result.message).toMatch(/^Dataset status transition to Retired? successful$/);
    expect(await storedStatuses(gw, 'retire-alias')).toEqual([['live', 'Retired']]);
    expect((await read('retire-alias', '?fields=status')).body.result).toEqual({ status: 'Retired' });
  });

  it('refuses Retire as it refuses Retired: a Draft-only dataset with 400 DATASET_RETIRE_FAILURE, an unknown one with 404', async () => {
    await seedDataset(gw, 'retire-alias-draft', 'Draft');
    const before = await storedVersions(gw, 'retire-alias-draft');
    const response = await move('retire-alias-draft', 'Retire');
    expectFailure(response, 400, 'DATASET_RETIRE_FAILURE', /retire-alias-draft/);
    expect(response.body.error.message).toMatch(/\bDraft\b/);
    expect(await storedVersions(gw, 'retire-alias-draft')).toEqual(before);
    expectFailure(await move('retire-alias-never-imported', 'Retire'), 404, 'DATASET_NOT_FOUND', /retire-alias-never-imported/);
  });

  it('returns 400 DATASET_STATUS_TRANSITION_INVALID_INPUT for a status value outside the lifecycle, and changes nothing', async () => {
    await seedDataset(gw, 'odd-status', 'Draft');
    const before = await storedVersions(gw, 'odd-status');
    expectFailure(await move('odd-status', 'Published'), 400, 'DATASET_STATUS_TRANSITION_INVALID_INPUT', /status/);
    expect(await storedVersions(gw, 'odd-status')).toEqual(before);
  });
});

describe('POST /v2/datasets/import', () => {
  it('returns 400 DATASET_IMPORT_INVALID_CONFIGS for an overwrite value other than true or false, and stores nothing', async () => {
    const response = await gw.http.post('/v2/datasets/import?overwrite=yes').send(envelope(API.import, definition('import-odd-overwrite')));
    expectFailure(response, 400, 'DATASET_IMPORT_INVALID_CONFIGS', /overwrite/);
    expect(await storedVersions(gw, 'import-odd-overwrite')).toEqual([]);
  });
});

describe('GET /v2/datasets/read/:id', () => {
  it('gives a Live read without fields= exactly the record fields of contract 2.1', async () => {
    await seedDataset(gw, 'read-default-fields', 'Live');
    const response = await read('read-default-fields');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.result).sort()).toEqual([...RECORD_FIELDS].sort());
  });

  it('returns 400 DATASET_READ_INVALID_INPUT for a status that is not a dataset status', async () => {
    await seedDataset(gw, 'read-odd-status', 'Live');
    expectFailure(await read('read-odd-status', '?status=Published'), 400, 'DATASET_READ_INVALID_INPUT', /status/);
  });

  it('writes the stored dataset_config text of a v1 Live record into the body byte for byte', async () => {
    const v1Text = await insertV1Live(gw, 'read-v1-text', { apiVersion: 'v1' });
    expect((await read('read-v1-text')).text).toContain(`"dataset_config":${v1Text}`);
    const nullText = await insertV1Live(gw, 'read-v1-null-text', { apiVersion: null });
    expect((await read('read-v1-null-text')).text).toContain(`"dataset_config":${nullText}`);
    const orderText =
      '{"timestamp_key":"data.event.ts","cache_db":12,"data_key":"","index_data":false,"entry_topic":"t.in","cache_db_port":null,"cache_db_host":"","exclude_fields":[],"file_upload_path":[]}';
    await insertV1Live(gw, 'read-v1-order-text', { datasetConfigText: orderText });
    expect((await read('read-v1-order-text', '?fields=dataset_config')).text).toContain(`"result":{"dataset_config":${orderText}}`);
  });
});

describe('POST /v2/datasets/list', () => {
  beforeAll(async () => {
    await seedDataset(gw, 'list-draft', 'Draft');
    await seedDataset(gw, 'list-ready', 'ReadyToPublish');
    await seedDataset(gw, 'list-live', 'Live');
    await seedDataset(gw, 'list-both', 'LiveWithDraft');
  });

  const pairs = (data: Json[]) => data.map((record) => `${record.dataset_id}:${record.status}`);

  async function countRows(): Promise<number> {
    const rows = await gw.sql<{ n: number }>('SELECT count(*)::int AS n FROM datasets');
    return rows.rows[0]!.n;
  }

  it('answers {data, count} and lists everything when the envelope carries no request', async () => {
    const result = await listOk();
    expect(Object.keys(result).sort()).toEqual(['count', 'data']);
    expect(result.data).toHaveLength(await countRows());
  });

  it.each<[string, Json, RegExp]>([
    ['a status value outside the lifecycle', { filters: { status: ['Live', 'Published'] } }, /\/request\/filters\/status/],
    ['a single unknown status string', { filters: { status: 'Archived' } }, /\/request\/filters\/status/],
    ['an unknown type', { filters: { type: 'stream' } }, /\/request\/filters\/type/],
    ['an unknown filter key', { filters: { colour: 'blue' } }, /'colour'/],
    // The list contract's rule (issue 34), in the words GraphQL gets for `first`.
    ['a negative limit, as the page size', { limit: -1 }, /^the page size must be an integer from 0 to 1000 \(got -1\)$/],
    ['a fractional offset', { offset: 1.5 }, /\/request\/offset/],
  ])('returns 400 DATASET_LIST_INPUT_INVALID for %s, naming it', async (_, request, message) => {
    expectFailure(await list(request), 400, 'DATASET_LIST_INPUT_INVALID', message);
  });

  it('pages with limit and offset: the pages together give the whole list once, in order, each with the full count', async () => {
    const all = await listOk({});
    const paged: Json[] = [];
    for (let offset = 0; offset < all.data.length + 3; offset += 3) {
      const page = await listOk({ limit: 3, offset });
      expect(page.data.length).toBeLessThanOrEqual(3);
      expect(page.count).toBe(all.count);
      paged.push(...page.data);
    }
    expect(pairs(paged)).toEqual(pairs(all.data));
    expect(pairs((await listOk({ limit: 2, offset: 1 })).data)).toEqual(pairs(all.data.slice(1, 3)));
  });

  it('returns 400 DATASET_LIST_INPUT_INVALID when the limit is above the maximum of 1000', async () => {
    expectFailure(await list({ limit: 1001 }), 400, 'DATASET_LIST_INPUT_INVALID', /1000/);
  });

  it.each<[string, Json]>([
    ['a limit past 32 bits', { limit: 2 ** 40 }],
    ['an offset past 2^53', { offset: 1e20 }],
  ])('answers %s with 400 DATASET_LIST_INPUT_INVALID, never a 500', async (_, request) => {
    expectFailure(await list(request), 400, 'DATASET_LIST_INPUT_INVALID', /./);
  });
});

describe('POST /v2/datasets/copy', () => {
  it('returns 400 DATASET_COPY_INVALID_INPUT when the destination is missing', async () => {
    const response = await gw.http.post('/v2/datasets/copy').send(envelope(API.copy, { source: { datasetId: 'x-src', isLive: true } }));
    expectFailure(response, 400, 'DATASET_COPY_INVALID_INPUT', /destination/);
  });
});

describe('POST /v2/datasources/list', () => {
  const datasources = async (filters: Json) => {
    const response = await gw.http.post('/v2/datasources/list').send(envelope('api.datasources.list', { filters }));
    expect(response.status).toBe(200);
    return (response.body.result.data as Json[]).map((entry) => entry.dataset_id as string);
  };

  it("takes a status as one value or a list, and the original's Purged, which lists nothing (only Live datasets have datasources)", async () => {
    await seedDataset(gw, 'datasources-one', 'Live');
    expect(await datasources({ status: 'Live' })).toContain('datasources-one');
    expect(await datasources({ status: ['Draft', 'Live'] })).toContain('datasources-one');
    expect(await datasources({ status: 'Purged' })).toEqual([]);
    expect(await datasources({ status: ['Purged', 'Retired'] })).toEqual([]);
  });
});
