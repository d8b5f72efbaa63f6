// Hostile connector archives over GraphQL (issue 7): each is refused with FAILED_TO_REGISTER_CONNECTOR,
// nothing is written outside the extraction folder, the work folder is cleaned up, and neither the
// registry nor the object store changes. The cases are shared with test/rest/connector-archives.test.ts.
import { access } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { distributionTarGz } from '../support/archives.js';
import { filesUnder, registerOverGraphQL, registrySnapshot, startStoreGateway, type StoreGateway } from '../support/connectors.js';
import { HOSTILE_CASES, HOSTILE_ENV, oversizedUpload } from '../support/hostile-archives.js';

let gw: StoreGateway;
beforeAll(async () => {
  gw = await startStoreGateway(HOSTILE_ENV);
});
afterAll(async () => {
  await gw?.stop();
});

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

describe('registerConnector(file) with a hostile archive', () => {
  it.each(HOSTILE_CASES)('refuses %s and changes nothing', async (_, build, message) => {
    const archive = build();
    const registry = await registrySnapshot(gw);
    const response = await registerOverGraphQL(gw, archive.bytes, archive.filename);
    expect(response.data).toBeNull();
    expect(response.errors?.[0]?.extensions).toEqual({ code: 'FAILED_TO_REGISTER_CONNECTOR', responseCode: 'INTERNAL_SERVER_ERROR' });
    expect(response.errors![0]!.message).toMatch(message);
    for (const escape of archive.escapes) expect(await exists(escape)).toBe(false);
    expect(await filesUnder(`${gw.dataDir}/tmp`)).toEqual([]);
    expect(await filesUnder(`${gw.dataDir}/objects`)).toEqual([]);
    expect(await registrySnapshot(gw)).toEqual(registry);
  });

  it('refuses an upload over the size limit with FAILED_TO_UPLOAD before reading it as an archive', async () => {
    const registry = await registrySnapshot(gw);
    const response = await registerOverGraphQL(gw, oversizedUpload(), 'huge.tar.gz');
    expect(response.errors?.[0]?.extensions?.code).toBe('FAILED_TO_UPLOAD');
    expect(response.errors![0]!.message).toBe('the file is larger than the 4194304-byte upload limit');
    expect(await registrySnapshot(gw)).toEqual(registry);
  });

  it('still registers a well-formed distribution under the same limits', async () => {
    const response = await registerOverGraphQL(gw, distributionTarGz({ id: 'hostile-control' }), 'ok.tar.gz');
    expect(response.errors).toBeUndefined();
    expect(await filesUnder(`${gw.dataDir}/objects`)).toHaveLength(1);
  });
});
