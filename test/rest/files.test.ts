// What only the REST layer of file links has (contract 4.5, 7, 8): the envelope, the request
// schema's refusals, and the second name url-access. The behaviour both transports share is in
// test/contract/files.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope } from '../support/api.js';
import { startStoreGateway, type StoreGateway } from '../support/connectors.js';

let gw: StoreGateway;
beforeAll(async () => {
  gw = await startStoreGateway();
});
afterAll(async () => {
  await gw?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

interface FileEntry {
  filePath: string;
  fileName: string;
  preSignedUrl: string;
}

function generate(request: Record<string, unknown>): Promise<Response> {
  return gw.http.post('/v2/files/generate-url').send(envelope('api.files.generate-url', request));
}

function expectFailure(response: Response, code: string, message: RegExp): void {
  expect({ status: response.status, code: response.body.error?.code, responseCode: response.body.responseCode }).toEqual({ status: 400, code, responseCode: 'BAD_REQUEST' });
  expect(response.body.params?.status).toBe('FAILED');
  expect(response.body.error.message).toMatch(message);
}

// ---------------------------------------------------------------------------------------------

describe('POST /v2/files/generate-url', () => {
  it('answers the envelope with one {filePath, fileName, preSignedUrl} per file', async () => {
    const response = await generate({ files: ['telemetry.json', 'data.tar.gz'] });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 'api.files.generate-url', responseCode: 'OK', params: { status: 'SUCCESS', msgid: 'test-msg-1' } });
    const entries = response.body.result as FileEntry[];
    expect(entries).toHaveLength(2);
    for (const entry of entries) expect(Object.keys(entry).sort()).toEqual(['fileName', 'filePath', 'preSignedUrl']);
  });

  it('is also served as POST /v2/files/url-access (the original second name), with the same permission and answer', async () => {
    const response = await gw.http.post('/v2/files/url-access').send(envelope('api.files.generate-url', { files: ['other-name.json'], access: 'read' }));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 'api.files.generate-url', result: [{ filePath: 'user_uploads/other-name.json', fileName: 'other-name.json' }] });
  });

  it('returns 400 FILES_GENERATE_URL_INPUT_INVALID when access is neither read nor write, naming the path', async () => {
    expectFailure(
      await generate({ files: ['a.json'], access: 'delete' }),
      'FILES_GENERATE_URL_INPUT_INVALID',
      /#properties\/request\/properties\/access\/enum must be equal to one of the allowed values \(read, write\)/,
    );
  });

  // How many files and how long their names are: test/contract/files.ts (one message on both transports).
  it.each([
    ['files is missing', {}, /required property 'files'/],
    ['a file name is not a string', { files: [42] }, /files\/items\/type must be string/],
    ['the request has an unknown key', { files: ['a.json'], bucket: 'other' }, /'bucket'/],
  ])('returns 400 FILES_GENERATE_URL_INPUT_INVALID when %s', async (_, request, message) => {
    expectFailure(await generate(request), 'FILES_GENERATE_URL_INPUT_INVALID', message);
  });

  it('returns 400 FILES_GENERATE_URL_INPUT_INVALID when the request is missing', async () => {
    const response = await gw.http.post('/v2/files/generate-url').send(envelope('api.files.generate-url'));
    expectFailure(response, 'FILES_GENERATE_URL_INPUT_INVALID', /required property 'request'/);
  });
});
