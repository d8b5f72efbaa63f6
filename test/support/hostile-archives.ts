// Hostile connector archives, shared by the REST and GraphQL suites (each sends every case over its
// own transport). Each case names what it would write outside the extraction folder, if anything,
// so the suites can check that nothing was.
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { distributionEntries, distributionTarGz, distributionZip, tar, tarGz, zip, type TarEntry } from './archives.js';

/** Small caps, so bombs and oversized entries are cheap to build. */
export const HOSTILE_ENV = {
  CONNECTOR_ARCHIVE_MAX_ENTRY_SIZE: '1mb',
  CONNECTOR_ARCHIVE_MAX_TOTAL_SIZE: '3mb',
  CONNECTOR_UPLOAD_LIMIT: '4mb',
};
export const MAX_ENTRY_BYTES = 1024 * 1024;
export const UPLOAD_LIMIT_BYTES = 4 * 1024 * 1024;

export interface HostileArchive {
  bytes: Buffer;
  filename: string;
  /** Absolute paths the archive tries to write; none may exist afterwards. */
  escapes: string[];
}

export type HostileCase = [description: string, build: () => HostileArchive, message: RegExp];

/** A file name no other test uses, in the system's temporary folder (the parent of each gateway's DATA_DIR). */
function outsideTarget(): { name: string; absolute: string } {
  const name = `escaped-${randomUUID()}.txt`;
  return { name, absolute: path.join(os.tmpdir(), name) };
}

// The extraction folder is DATA_DIR/tmp/connector-XXXX/extract and DATA_DIR is in the temporary
// folder, so four `..` reach the temporary folder itself.
const CLIMB = '../../../../';

function tarCase(id: string, extra: TarEntry[]): Buffer {
  return tarGz(distributionEntries({ id, extra }));
}

function zipCase(id: string, extra: Parameters<typeof zip>[0]): Buffer {
  const entries = distributionEntries({ id }).map((entry) => ({ path: entry.path, body: entry.body }));
  return zip([...entries, ...extra]);
}

export const HOSTILE_CASES: HostileCase[] = [
  [
    'a .tar.gz entry that climbs out with ../',
    () => {
      const target = outsideTarget();
      return { bytes: tarCase('hostile-tar-climb', [{ path: CLIMB + target.name, body: 'escaped' }]), filename: 'climb.tar.gz', escapes: [target.absolute] };
    },
    /paths that climb out of the archive \('\.\.'\) are not allowed/,
  ],
  [
    'a .zip entry that climbs out with ../',
    () => {
      const target = outsideTarget();
      return { bytes: zipCase('hostile-zip-climb', [{ path: CLIMB + target.name, body: 'escaped' }]), filename: 'climb.zip', escapes: [target.absolute] };
    },
    /invalid relative path/,
  ],
  [
    'a .tar.gz entry with a backslash path (..\\..\\x)',
    () => ({ bytes: tarCase('hostile-tar-backslash', [{ path: '..\\..\\..\\..\\backslash.txt', body: 'escaped' }]), filename: 'backslash.tar.gz', escapes: [] }),
    /the path contains a backslash/,
  ],
  [
    'a .tar.gz entry with an absolute path',
    () => {
      const target = outsideTarget();
      return { bytes: tarCase('hostile-tar-absolute', [{ path: target.absolute, body: 'escaped' }]), filename: 'absolute.tar.gz', escapes: [target.absolute] };
    },
    /absolute paths are not allowed/,
  ],
  [
    'a .zip entry with an absolute path',
    () => {
      const target = outsideTarget();
      return { bytes: zipCase('hostile-zip-absolute', [{ path: target.absolute, body: 'escaped' }]), filename: 'absolute.zip', escapes: [target.absolute] };
    },
    /absolute path/,
  ],
  [
    'a .tar.gz symbolic link to a folder outside, then a file written through it',
    () => {
      const target = outsideTarget();
      const entries: TarEntry[] = [
        { path: 'hostile-tar-link-1.0.0/out', type: 'SymbolicLink', linkpath: os.tmpdir() },
        { path: `hostile-tar-link-1.0.0/out/${target.name}`, body: 'escaped' },
      ];
      return { bytes: tarCase('hostile-tar-link', entries), filename: 'link.tar.gz', escapes: [target.absolute] };
    },
    /links are not allowed \(it points to/,
  ],
  [
    'a .tar.gz hard link to a file outside',
    () => ({ bytes: tarCase('hostile-tar-hardlink', [{ path: 'passwd', type: 'Link', linkpath: '/etc/passwd' }]), filename: 'hardlink.tar.gz', escapes: [] }),
    /links are not allowed/,
  ],
  [
    'a .zip symbolic link',
    () => ({ bytes: zipCase('hostile-zip-link', [{ path: 'hostile-zip-link-1.0.0/out', body: os.tmpdir(), mode: 0o120777 }]), filename: 'link.zip', escapes: [] }),
    /links are not allowed/,
  ],
  ['a .tar.gz FIFO entry', () => ({ bytes: tarCase('hostile-tar-fifo', [{ path: 'pipe', type: 'FIFO' }]), filename: 'fifo.tar.gz', escapes: [] }), /entries of type FIFO are not allowed/],
  [
    'a .tar.gz decompression bomb (32 MiB of zeros in a few kilobytes)',
    () => ({ bytes: tarCase('hostile-tar-bomb', [{ path: 'zeros.bin', body: Buffer.alloc(32 * 1024 * 1024) }]), filename: 'bomb.tar.gz', escapes: [] }),
    /larger than the 1048576-byte limit for one entry/,
  ],
  [
    'a .zip decompression bomb (32 MiB of zeros in a few kilobytes)',
    () => ({ bytes: zipCase('hostile-zip-bomb', [{ path: 'zeros.bin', body: Buffer.alloc(32 * 1024 * 1024), deflate: true }]), filename: 'bomb.zip', escapes: [] }),
    /larger than the 1048576-byte limit for one entry/,
  ],
  [
    'a .zip entry whose header understates what it inflates to',
    () => ({ bytes: zipCase('hostile-zip-liar', [{ path: 'liar.bin', body: Buffer.alloc(2 * 1024 * 1024), deflate: true, declaredSize: 100 }]), filename: 'liar.zip', escapes: [] }),
    /too many bytes in the stream|larger than the 1048576-byte limit/,
  ],
  [
    'a .tar.gz entry over the per-entry limit that does not compress',
    () => ({ bytes: tarCase('hostile-tar-big-entry', [{ path: 'random.bin', body: randomBytes(MAX_ENTRY_BYTES + 1) }]), filename: 'big.tar.gz', escapes: [] }),
    /entry "random\.bin": larger than the 1048576-byte limit for one entry/,
  ],
  [
    'a .tar.gz whose entries together pass the total limit',
    () => {
      const chunk = () => randomBytes(Math.floor(0.9 * MAX_ENTRY_BYTES));
      const entries = [1, 2, 3, 4].map((n) => ({ path: `part-${n}.bin`, body: chunk() }));
      return { bytes: tarCase('hostile-tar-total', entries), filename: 'total.tar.gz', escapes: [] };
    },
    /the archive unpacks to more than the 3145728-byte limit \(CONNECTOR_ARCHIVE_MAX_TOTAL_SIZE\)/,
  ],
  [
    'a .tar.gz of 10,000 tiny entries',
    () => {
      const entries = Array.from({ length: 10_000 }, (_, n) => ({ path: `many/${n}.txt`, body: 'x' }));
      return { bytes: tarCase('hostile-tar-many', entries), filename: 'many.tar.gz', escapes: [] };
    },
    /the archive has more than 2000 entries \(CONNECTOR_ARCHIVE_MAX_ENTRIES\)/,
  ],
  [
    'a .zip of 10,000 tiny entries',
    () => {
      const entries = Array.from({ length: 10_000 }, (_, n) => ({ path: `many/${n}.txt`, body: 'x' }));
      return { bytes: zipCase('hostile-zip-many', entries), filename: 'many.zip', escapes: [] };
    },
    /the archive has 1000\d entries; at most 2000 are allowed/,
  ],
  [
    'a truncated .tar.gz',
    () => {
      const whole = distributionTarGz({ id: 'hostile-tar-truncated', extra: [{ path: 'data.bin', body: randomBytes(64 * 1024) }] });
      return { bytes: whole.subarray(0, Math.floor(whole.length / 2)), filename: 'truncated.tar.gz', escapes: [] };
    },
    /the archive could not be read: .*(unexpected end of file|Truncated)/,
  ],
  [
    'a .tar.gz whose tar stream stops in the middle of an entry',
    () => {
      const whole = tar(distributionEntries({ id: 'hostile-tar-cut', extra: [{ path: 'data.bin', body: randomBytes(64 * 1024) }] }));
      return { bytes: zlib.gzipSync(whole.subarray(0, whole.length - 40 * 1024)), filename: 'cut.tar.gz', escapes: [] };
    },
    /the archive could not be read: .*Truncated input/,
  ],
  [
    'a truncated .zip',
    () => {
      const whole = distributionZip({ id: 'hostile-zip-truncated' });
      return { bytes: whole.subarray(0, whole.length - 30), filename: 'truncated.zip', escapes: [] };
    },
    /the archive could not be read: end of central directory record signature not found/i,
  ],
  [
    'a .tar.gz holding the same file twice',
    () => ({
      bytes: tarCase('hostile-tar-twice', [
        { path: 'twice.txt', body: 'a' },
        { path: 'twice.txt', body: 'b' },
      ]),
      filename: 'twice.tar.gz',
      escapes: [],
    }),
    /entry "twice\.txt": the archive holds this file twice/,
  ],
  [
    'a .tar.gz where a file and a folder have the same path',
    () => ({
      bytes: tarCase('hostile-tar-clash', [
        { path: 'clash', body: 'a file' },
        { path: 'clash/inner.txt', body: 'b' },
      ]),
      filename: 'clash.tar.gz',
      escapes: [],
    }),
    /a file and a folder of the archive have the same path/,
  ],
  [
    'a ui-config.json nested 100,000 levels deep',
    () => {
      const entries = distributionEntries({ id: 'hostile-deep-ui', uiConfig: null });
      entries.push({ path: 'ui-config.json', body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` });
      return { bytes: tarGz(entries), filename: 'deep.tar.gz', escapes: [] };
    },
    /ui-config\.json nests deeper than 64 levels/,
  ],
];

/** An upload one byte over the limit (random bytes, so nothing about it is an archive). */
export function oversizedUpload(): Buffer {
  return randomBytes(UPLOAD_LIMIT_BYTES + 1);
}
