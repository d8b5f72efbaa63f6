// Pre-signed file links over GraphQL (generateFileUrls), against the embedded object store.
// Mirrors test/rest/files.test.ts rule by rule; the links themselves (tampering, expiry, methods)
// are tested in test/platform/embedded-object-store.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { graphql, type GraphQLResponse } from '../support/api.js';
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

interface FileLink {
  filePath: string;
  fileName: string;
  preSignedUrl: string;
  expiresAt: string;
}

const MUTATION = `mutation Links($files: [String!]!, $access: FileAccess, $kind: FileKind) {
  generateFileUrls(files: $files, access: $access, kind: $kind) { filePath fileName preSignedUrl expiresAt }
}`;
const DEFAULTS_MUTATION = `mutation Links($files: [String!]!) { generateFileUrls(files: $files) { filePath fileName preSignedUrl expiresAt } }`;

function generate(variables: Record<string, unknown>): Promise<GraphQLResponse<Record<string, any>>> {
  return graphql(gw, 'access' in variables || 'kind' in variables ? MUTATION : DEFAULTS_MUTATION, variables);
}

async function generateOk(variables: Record<string, unknown>): Promise<FileLink[]> {
  const response = await generate(variables);
  expect(response.errors).toBeUndefined();
  return response.data!.generateFileUrls;
}

function expectError(response: GraphQLResponse, code: string, message: RegExp): void {
  expect(response.errors?.[0]?.extensions).toEqual({ code, responseCode: 'BAD_REQUEST' });
  expect(response.errors![0]!.message).toMatch(message);
}

// ---------------------------------------------------------------------------------------------

describe('generateFileUrls(files, access, kind)', () => {
  it('gives upload links by default, with a generated suffix in each filePath', async () => {
    const links = await generateOk({ files: ['telemetry.json', 'telemetry.json', 'data.tar.gz'] });
    expect(links.map((link) => link.fileName)).toEqual(['telemetry.json', 'telemetry.json', 'data.tar.gz']);
    expect(links[0]!.filePath).toMatch(/^user_uploads\/telemetry_[0-9a-f]{6}\.json$/);
    expect(links[1]!.filePath).toMatch(/^user_uploads\/telemetry_[0-9a-f]{6}\.json$/);
    expect(links[1]!.filePath).not.toBe(links[0]!.filePath);
    expect(links[2]!.filePath).toMatch(/^user_uploads\/data_[0-9a-f]{6}\.tar\.gz$/);
    expect(links[0]!.preSignedUrl.startsWith(`${gw.url}/objects/${links[0]!.filePath}?`)).toBe(true);
  });

  it('gives links that expire 600 seconds after they are made, and says when in expiresAt', async () => {
    const before = Date.now();
    const [link] = await generateOk({ files: ['expiry.json'], access: 'WRITE' });
    const expiresAt = Date.parse(link!.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000);
    expect(Number(new URL(link!.preSignedUrl).searchParams.get('expires'))).toBe(Math.floor(expiresAt / 1000));
  });

  it('lets a client upload with the write link and download with a read link for the filePath it got', async () => {
    const [written] = await generateOk({ files: ['round trip.csv'], access: 'WRITE' });
    expect(written!.filePath).toMatch(/^user_uploads\/round_trip_[0-9a-f]{6}\.csv$/);
    expect((await fetch(written!.preSignedUrl, { method: 'PUT', body: 'a,b\n1,2\n' })).status).toBe(200);
    expect(await filesUnder(`${gw.dataDir}/objects`)).toContain(written!.filePath);

    const [read] = await generateOk({ files: [written!.filePath], access: 'READ' });
    expect(read!.filePath).toBe(written!.filePath);
    const download = await fetch(read!.preSignedUrl);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('a,b\n1,2\n');
  });

  it('gives download links without a suffix for access READ: the name under the prefix, as given', async () => {
    const links = await generateOk({ files: ['telemetry.json', 'reports/2026/day.json'], access: 'READ' });
    expect(links.map((link) => link.filePath)).toEqual(['user_uploads/telemetry.json', 'user_uploads/reports/2026/day.json']);
  });

  it('puts connector files under connectors/ for kind CONNECTOR', async () => {
    const [link] = await generateOk({ files: ['dist.tgz'], kind: 'CONNECTOR' });
    expect(link!.filePath).toMatch(/^connectors\/dist_[0-9a-f]{6}\.tgz$/);
  });

  it('sanitises upload names: only the last path segment, no control characters, unusual characters as _', async () => {
    const names = ['../../etc/passwd', 'C:\\Users\\me\\report.csv', 'bad\u0000na\nme\u007f.json', 'sp ace&semi;colon.txt', '.hidden.json', 'données.csv'];
    const links = await generateOk({ files: names });
    expect(links.map((link) => link.fileName)).toEqual(names);
    expect(links.map((link) => link.filePath.replace(/_[0-9a-f]{6}(?=\.|$)/, '_SUFFIX'))).toEqual([
      'user_uploads/passwd_SUFFIX',
      'user_uploads/report_SUFFIX.csv',
      'user_uploads/badname_SUFFIX.json',
      'user_uploads/sp_ace_semi_colon_SUFFIX.txt',
      'user_uploads/hidden_SUFFIX.json',
      'user_uploads/données_SUFFIX.csv',
    ]);
  });

  it('accepts 20 files and refuses 21 with FILES_URL_GENERATION_LIMIT_EXCEED', async () => {
    const twenty = Array.from({ length: 20 }, (_, n) => `file-${n}.json`);
    expect(await generateOk({ files: twenty })).toHaveLength(20);
    expectError(await generate({ files: [...twenty, 'one-more.json'] }), 'FILES_URL_GENERATION_LIMIT_EXCEED', /^Pre-signed URL generation failed: limit exceeded\. At most 20 files per call \(got 21\)\.$/);
  });

  it('refuses an access that is neither READ nor WRITE, naming the allowed values', async () => {
    const response = await generate({ files: ['a.json'], access: 'DELETE' });
    expect(response.data).toBeUndefined();
    expect(response.errors?.[0]?.message).toMatch(/Value "DELETE" does not exist in "FileAccess" enum/);
  });

  it('refuses a missing or empty file list', async () => {
    const missing = await graphql(gw, DEFAULTS_MUTATION, {});
    expect(missing.errors?.[0]?.message).toMatch(/\$files/);
    expectError(await generate({ files: [] }), 'FILES_GENERATE_URL_INPUT_INVALID', /files must name at least one file/);
  });

  it.each([
    ['climbs out with ..', '../secrets.json', /files\[1\] \("\.\.\/secrets\.json"\): the name has a '\.\.' segment/],
    ['is an absolute path', '/etc/passwd', /files\[1\] .*absolute path/],
    ['holds a backslash', '..\\secrets.json', /files\[1\] .*backslash/],
    ['holds a control character', 'a\u0001.json', /files\[1\] .*control characters/],
    ['has an empty segment', 'a//b.json', /files\[1\] .*empty segment/],
  ])('refuses a download name that %s, naming it, and signs nothing', async (_, name, message) => {
    expectError(await generate({ files: ['fine.json', name], access: 'READ' }), 'FILES_GENERATE_URL_INPUT_INVALID', message);
  });

  it('refuses an upload name with no letters or digits', async () => {
    expectError(await generate({ files: ['...'] }), 'FILES_GENERATE_URL_INPUT_INVALID', /files\[0\] .*no letters or digits/);
  });

  it('writes nothing to the store until a link is used', async () => {
    const before = await filesUnder(`${gw.dataDir}/objects`);
    await generateOk({ files: ['unused.json'] });
    expect(await filesUnder(`${gw.dataDir}/objects`)).toEqual(before);
  });
});
