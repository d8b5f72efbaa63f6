// What only GraphQL's generateFileUrls has: expiresAt, and the refusals its types make before any
// resolver runs. The behaviour both transports share is in test/contract/files.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { graphql, type GraphQLResponse } from '../support/api.js';
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
  it('says when each link expires in expiresAt, the expiry its URL carries, 600 seconds on', async () => {
    const before = Date.now();
    const [link] = await generateOk({ files: ['expiry.json'], access: 'WRITE' });
    const expiresAt = Date.parse(link!.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000);
    expect(Number(new URL(link!.preSignedUrl).searchParams.get('expires'))).toBe(Math.floor(expiresAt / 1000));
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
});
