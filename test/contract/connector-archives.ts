// Hostile connector archives (issue 7), written once for both transports: each is refused with
// FAILED_TO_UPLOAD (400: the caller's archive, not a server fault), nothing is written outside the extraction folder, the work folder
// is cleaned up, and neither the registry nor the object store changes.
import { access } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { distributionTarGz } from '../support/archives.js';
import { filesUnder, registrySnapshot, type StoreGateway } from '../support/connectors.js';
import { HOSTILE_CASES, oversizedUpload } from '../support/hostile-archives.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface ArchivesDriver {
  /** Registers a distribution: the answer's message (GraphQL's payload also lists the versions; test/graphql/connectors.test.ts). */
  register(bytes: Buffer, filename: string): Promise<Outcome<{ message: string }>>;
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

export function archiveScenarios(ctx: SuiteContext<ArchivesDriver, StoreGateway>): void {
  describe('a hostile archive', () => {
    it.each(HOSTILE_CASES)('is refused (%s) and changes nothing', async (_, build, message) => {
      const archive = build();
      const registry = await registrySnapshot(ctx.gw);
      expectFailure(await ctx.driver.register(archive.bytes, archive.filename), 'FAILED_TO_UPLOAD', message);
      for (const escape of archive.escapes) expect(await exists(escape)).toBe(false);
      expect(await filesUnder(`${ctx.gw.dataDir}/tmp`)).toEqual([]);
      expect(await filesUnder(`${ctx.gw.dataDir}/objects`)).toEqual([]);
      expect(await registrySnapshot(ctx.gw)).toEqual(registry);
    });

    it('over the size limit is refused with FAILED_TO_UPLOAD before it is read as an archive', async () => {
      const registry = await registrySnapshot(ctx.gw);
      expectFailure(await ctx.driver.register(oversizedUpload(), 'huge.tar.gz'), 'FAILED_TO_UPLOAD', /^the file is larger than the 4194304-byte upload limit \(CONNECTOR_UPLOAD_LIMIT=4mb\)$/);
      expect(await registrySnapshot(ctx.gw)).toEqual(registry);
    });
  });

  it('a well-formed distribution still registers under the same limits', async () => {
    expectOk(await ctx.driver.register(distributionTarGz({ id: 'hostile-control' }), 'ok.tar.gz'));
    expect(await filesUnder(`${ctx.gw.dataDir}/objects`)).toHaveLength(1);
  });
}
