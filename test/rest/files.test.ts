// Pre-signed file links over the REST compatibility layer (contract 2.5, 4.5, 7, 8; reference §5),
// against the embedded object store. Mirrors test/graphql/files.test.ts rule by rule; the links
// themselves (tampering, expiry, methods) are tested in test/platform/embedded-object-store.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope } from '../support/api.js';
import { filesUnder, startStoreGateway, type StoreGateway } from '../support/connectors.js';

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

async function generateOk(request: Record<string, unknown>): Promise<FileEntry[]> {
  const response = await generate(request);
  expect({ status: response.status, error: response.body.error }).toEqual({ status: 200, error: undefined });
  return response.body.result as FileEntry[];
}

function expectFailure(response: Response, code: string, message: RegExp): void {
  expect({ status: response.status, code: response.body.error?.code, responseCode: response.body.responseCode }).toEqual({ status: 400, code, responseCode: 'BAD_REQUEST' });
  expect(response.body.params?.status).toBe('FAILED');
  expect(response.body.error.message).toMatch(message);
}

/** PUTs or GETs a link with a real HTTP client (fetch), as a browser or curl would. */
function upload(url: string, body: string): Promise<globalThis.Response> {
  return fetch(url, { method: 'PUT', body });
}

// ---------------------------------------------------------------------------------------------

describe('POST /v2/files/generate-url', () => {
  it('gives upload links by default: {filePath, fileName, preSignedUrl} with a generated suffix in each filePath', async () => {
    const response = await generate({ files: ['telemetry.json', 'telemetry.json', 'data.tar.gz'] });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 'api.files.generate-url', responseCode: 'OK', params: { status: 'SUCCESS', msgid: 'test-msg-1' } });
    const entries = response.body.result as FileEntry[];
    expect(entries).toHaveLength(3);
    for (const entry of entries) expect(Object.keys(entry).sort()).toEqual(['fileName', 'filePath', 'preSignedUrl']);
    expect(entries.map((entry) => entry.fileName)).toEqual(['telemetry.json', 'telemetry.json', 'data.tar.gz']);
    expect(entries[0]!.filePath).toMatch(/^user_uploads\/telemetry_[0-9a-f]{6}\.json$/);
    expect(entries[1]!.filePath).toMatch(/^user_uploads\/telemetry_[0-9a-f]{6}\.json$/);
    expect(entries[1]!.filePath).not.toBe(entries[0]!.filePath);
    expect(entries[2]!.filePath).toMatch(/^user_uploads\/data_[0-9a-f]{6}\.tar\.gz$/);
    expect(entries[0]!.preSignedUrl.startsWith(`${gw.url}/objects/${entries[0]!.filePath}?`)).toBe(true);
  });

  it('gives links that expire 600 seconds after they are made', async () => {
    const before = Math.floor(Date.now() / 1000);
    const [entry] = await generateOk({ files: ['expiry.json'], access: 'write' });
    const expires = Number(new URL(entry!.preSignedUrl).searchParams.get('expires'));
    expect(expires).toBeGreaterThanOrEqual(before + 600);
    expect(expires).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 600);
  });

  it('lets a client upload with the write link and download with a read link for the filePath it got', async () => {
    const [written] = await generateOk({ files: ['round trip.csv'], access: 'write' });
    expect(written!.filePath).toMatch(/^user_uploads\/round_trip_[0-9a-f]{6}\.csv$/);
    expect((await upload(written!.preSignedUrl, 'a,b\n1,2\n')).status).toBe(200);
    expect(await filesUnder(`${gw.dataDir}/objects`)).toContain(written!.filePath);

    const [read] = await generateOk({ files: [written!.filePath], access: 'read' });
    expect(read!.filePath).toBe(written!.filePath);
    const download = await fetch(read!.preSignedUrl);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('a,b\n1,2\n');
  });

  it('gives download links without a suffix for access read: the name under the prefix, as given', async () => {
    const entries = await generateOk({ files: ['telemetry.json', 'reports/2026/day.json'], access: 'read' });
    expect(entries.map((entry) => entry.filePath)).toEqual(['user_uploads/telemetry.json', 'user_uploads/reports/2026/day.json']);
    expect(entries.map((entry) => entry.fileName)).toEqual(['telemetry.json', 'reports/2026/day.json']);
  });

  it('puts connector files under connectors/ when type is connector', async () => {
    const [entry] = await generateOk({ files: ['dist.tgz'], type: 'connector' });
    expect(entry!.filePath).toMatch(/^connectors\/dist_[0-9a-f]{6}\.tgz$/);
  });

  it('sanitises upload names: only the last path segment, no control characters, unusual characters as _', async () => {
    const names = ['../../etc/passwd', 'C:\\Users\\me\\report.csv', 'bad\u0000na\nme\u007f.json', 'sp ace&semi;colon.txt', '.hidden.json', 'données.csv'];
    const entries = await generateOk({ files: names });
    expect(entries.map((entry) => entry.fileName)).toEqual(names);
    const stored = entries.map((entry) => entry.filePath.replace(/_[0-9a-f]{6}(?=\.|$)/, '_SUFFIX'));
    expect(stored).toEqual([
      'user_uploads/passwd_SUFFIX',
      'user_uploads/report_SUFFIX.csv',
      'user_uploads/badname_SUFFIX.json',
      'user_uploads/sp_ace_semi_colon_SUFFIX.txt',
      'user_uploads/hidden_SUFFIX.json',
      'user_uploads/données_SUFFIX.csv',
    ]);
  });

  it('accepts 20 files and refuses 21 with 400 FILES_URL_GENERATION_LIMIT_EXCEED', async () => {
    const twenty = Array.from({ length: 20 }, (_, n) => `file-${n}.json`);
    expect(await generateOk({ files: twenty })).toHaveLength(20);
    expectFailure(await generate({ files: [...twenty, 'one-more.json'] }), 'FILES_URL_GENERATION_LIMIT_EXCEED', /^Pre-signed URL generation failed: limit exceeded\. At most 20 files per call \(got 21\)\.$/);
  });

  it('returns 400 FILES_GENERATE_URL_INPUT_INVALID when access is neither read nor write, naming the path', async () => {
    expectFailure(await generate({ files: ['a.json'], access: 'delete' }), 'FILES_GENERATE_URL_INPUT_INVALID', /#properties\/request\/properties\/access\/enum must be equal to one of the allowed values \(read, write\)/);
  });

  it.each([
    ['files is missing', {}, /required property 'files'/],
    ['files is empty', { files: [] }, /files\/minItems/],
    ['a file name is empty', { files: [''] }, /minLength/],
    ['a file name is not a string', { files: [42] }, /files\/items\/type must be string/],
    ['the request has an unknown key', { files: ['a.json'], bucket: 'other' }, /'bucket'/],
  ])('returns 400 FILES_GENERATE_URL_INPUT_INVALID when %s', async (_, request, message) => {
    expectFailure(await generate(request), 'FILES_GENERATE_URL_INPUT_INVALID', message);
  });

  it('returns 400 FILES_GENERATE_URL_INPUT_INVALID when the request is missing', async () => {
    const response = await gw.http.post('/v2/files/generate-url').send(envelope('api.files.generate-url'));
    expectFailure(response, 'FILES_GENERATE_URL_INPUT_INVALID', /required property 'request'/);
  });

  it.each([
    ['climbs out with ..', '../secrets.json', /files\[1\] \("\.\.\/secrets\.json"\): the name has a '\.\.' segment/],
    ['is an absolute path', '/etc/passwd', /files\[1\] .*absolute path/],
    ['holds a backslash', '..\\secrets.json', /files\[1\] .*backslash/],
    ['holds a control character', 'a\u0001.json', /files\[1\] .*control characters/],
    ['has an empty segment', 'a//b.json', /files\[1\] .*empty segment/],
  ])('refuses a download name that %s, naming it, and signs nothing', async (_, name, message) => {
    expectFailure(await generate({ files: ['fine.json', name], access: 'read' }), 'FILES_GENERATE_URL_INPUT_INVALID', message);
  });

  it('refuses an upload name with no letters or digits', async () => {
    expectFailure(await generate({ files: ['...'] }), 'FILES_GENERATE_URL_INPUT_INVALID', /files\[0\] .*no letters or digits/);
  });

  it('writes nothing to the store until a link is used', async () => {
    const before = await filesUnder(`${gw.dataDir}/objects`);
    await generateOk({ files: ['unused.json'] });
    expect(await filesUnder(`${gw.dataDir}/objects`)).toEqual(before);
  });
});
