// Pre-signed file links (contract 2.5, 4.5; reference §5) against the embedded object store, written
// once for both transports. The links themselves (tampering, expiry, methods) are tested in
// test/platform/embedded-object-store.test.ts.
import { describe, expect, it } from '@jest/globals';
import { FILE_NAME_MAX_LENGTH } from '../../src/modules/files/index.js';
import { filesUnder, type StoreGateway } from '../support/connectors.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface FileEntry {
  filePath: string;
  fileName: string;
  preSignedUrl: string;
}

export interface FilesDriver {
  generate(files: unknown[], options?: { access?: 'read' | 'write'; type?: 'dataset' | 'connector' }): Promise<Outcome<FileEntry[]>>;
}

export function fileScenarios(ctx: SuiteContext<FilesDriver, StoreGateway>): void {
  const generateOk = async (files: unknown[], options?: Parameters<FilesDriver['generate']>[1]) => expectOk(await ctx.driver.generate(files, options));
  const INVALID = 'FILES_GENERATE_URL_INPUT_INVALID';

  describe('generating links', () => {
    it('gives upload links by default, with a generated suffix in each filePath', async () => {
      const entries = await generateOk(['telemetry.json', 'telemetry.json', 'data.tar.gz']);
      expect(entries.map((entry) => entry.fileName)).toEqual(['telemetry.json', 'telemetry.json', 'data.tar.gz']);
      expect(entries[0]!.filePath).toMatch(/^user_uploads\/telemetry_[0-9a-f]{6}\.json$/);
      expect(entries[1]!.filePath).toMatch(/^user_uploads\/telemetry_[0-9a-f]{6}\.json$/);
      expect(entries[1]!.filePath).not.toBe(entries[0]!.filePath);
      expect(entries[2]!.filePath).toMatch(/^user_uploads\/data_[0-9a-f]{6}\.tar\.gz$/);
      expect(entries[0]!.preSignedUrl.startsWith(`${ctx.gw.url}/objects/${entries[0]!.filePath}?`)).toBe(true);
    });

    it('gives links that expire 600 seconds after they are made', async () => {
      const before = Math.floor(Date.now() / 1000);
      const [entry] = await generateOk(['expiry.json'], { access: 'write' });
      const expires = Number(new URL(entry!.preSignedUrl).searchParams.get('expires'));
      expect(expires).toBeGreaterThanOrEqual(before + 600);
      expect(expires).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 600);
    });

    it('lets a client upload with the write link and download with a read link for the filePath it got', async () => {
      const [written] = await generateOk(['round trip.csv'], { access: 'write' });
      expect(written!.filePath).toMatch(/^user_uploads\/round_trip_[0-9a-f]{6}\.csv$/);
      expect((await fetch(written!.preSignedUrl, { method: 'PUT', body: 'a,b\n1,2\n' })).status).toBe(200);
      expect(await filesUnder(`${ctx.gw.dataDir}/objects`)).toContain(written!.filePath);

      const [read] = await generateOk([written!.filePath], { access: 'read' });
      expect(read!.filePath).toBe(written!.filePath);
      const download = await fetch(read!.preSignedUrl);
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('a,b\n1,2\n');
    });

    it('gives download links without a suffix for access read: the name under the prefix, as given', async () => {
      const entries = await generateOk(['telemetry.json', 'reports/2026/day.json'], { access: 'read' });
      expect(entries.map((entry) => entry.filePath)).toEqual(['user_uploads/telemetry.json', 'user_uploads/reports/2026/day.json']);
      expect(entries.map((entry) => entry.fileName)).toEqual(['telemetry.json', 'reports/2026/day.json']);
    });

    it('puts connector files under connectors/ for type connector', async () => {
      const [entry] = await generateOk(['dist.tgz'], { type: 'connector' });
      expect(entry!.filePath).toMatch(/^connectors\/dist_[0-9a-f]{6}\.tgz$/);
    });

    it('sanitises upload names: only the last path segment, no control characters, unusual characters as _', async () => {
      const names = ['../../etc/passwd', 'C:\\Users\\me\\report.csv', 'bad\u0000na\nme\u007f.json', 'sp ace&semi;colon.txt', '.hidden.json', 'données.csv'];
      const entries = await generateOk(names);
      expect(entries.map((entry) => entry.fileName)).toEqual(names);
      expect(entries.map((entry) => entry.filePath.replace(/_[0-9a-f]{6}(?=\.|$)/, '_SUFFIX'))).toEqual([
        'user_uploads/passwd_SUFFIX',
        'user_uploads/report_SUFFIX.csv',
        'user_uploads/badname_SUFFIX.json',
        'user_uploads/sp_ace_semi_colon_SUFFIX.txt',
        'user_uploads/hidden_SUFFIX.json',
        'user_uploads/données_SUFFIX.csv',
      ]);
    });

    it('writes nothing to the store until a link is used', async () => {
      const before = await filesUnder(`${ctx.gw.dataDir}/objects`);
      await generateOk(['unused.json']);
      expect(await filesUnder(`${ctx.gw.dataDir}/objects`)).toEqual(before);
    });
  });

  describe('refusals', () => {
    it('accepts 20 files and refuses 21 with FILES_URL_GENERATION_LIMIT_EXCEED', async () => {
      const twenty = Array.from({ length: 20 }, (_, n) => `file-${n}.json`);
      expect(await generateOk(twenty)).toHaveLength(20);
      expectFailure(
        await ctx.driver.generate([...twenty, 'one-more.json']),
        'FILES_URL_GENERATION_LIMIT_EXCEED',
        /^Pre-signed URL generation failed: limit exceeded\. At most 20 files per call \(FILES_URL_LIMIT; got 21\)\.$/,
      );
    });

    it.each([
      ['climbs out with ..', '../secrets.json', /files\[1\] \("\.\.\/secrets\.json"\): the name has a '\.\.' segment/],
      ['is an absolute path', '/etc/passwd', /files\[1\] .*absolute path/],
      ['holds a backslash', '..\\secrets.json', /files\[1\] .*backslash/],
      ['holds a control character', 'a\u0001.json', /files\[1\] .*control characters/],
      ['has an empty segment', 'a//b.json', /files\[1\] .*empty segment/],
    ])('refuses a download name that %s, naming it, and signs nothing', async (_, name, message) => {
      expectFailure(await ctx.driver.generate(['fine.json', name], { access: 'read' }), INVALID, message);
    });

    it('refuses an empty list of files', async () => {
      expectFailure(await ctx.driver.generate([]), INVALID, /^files must name at least one file$/);
    });

    it('refuses an empty file name, naming it', async () => {
      expectFailure(await ctx.driver.generate(['a.json', '']), INVALID, /^files\[1\] must not be empty$/);
    });

    it(`accepts an upload name of ${FILE_NAME_MAX_LENGTH} characters (stored cut short) and refuses a longer one, naming it`, async () => {
      const longest = `${'n'.repeat(FILE_NAME_MAX_LENGTH - 5)}.json`;
      expect(expectOk(await ctx.driver.generate([longest]))[0]!.fileName).toBe(longest);
      expectFailure(await ctx.driver.generate([`x${longest}`]), INVALID, new RegExp(`^files\\[0\\] is ${FILE_NAME_MAX_LENGTH + 1} characters long; at most ${FILE_NAME_MAX_LENGTH} are allowed$`));
    });

    it('refuses an upload name with no letters or digits', async () => {
      expectFailure(await ctx.driver.generate(['...']), INVALID, /files\[0\] .*no letters or digits/);
    });
  });
}
