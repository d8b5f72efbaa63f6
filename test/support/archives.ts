// Builds connector distributions and hostile archives byte by byte (tar headers via tar's own Header
// class, zip records by hand), so tests control every field: archive libraries refuse to write the
// traversal, link and lying-size entries these tests need.
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { Header } from 'tar';

export interface TarEntry {
  path: string;
  body?: Buffer | string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'FIFO' | 'CharacterDevice';
  linkpath?: string;
}

/** An uncompressed tar stream of the entries, ended by the two zero blocks. */
export function tar(entries: readonly TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = entry.body === undefined ? Buffer.alloc(0) : Buffer.from(entry.body);
    const type = entry.type ?? (entry.path.endsWith('/') ? 'Directory' : 'File');
    const header = new Header({
      path: entry.path,
      mode: type === 'Directory' ? 0o755 : 0o644,
      size: type === 'File' ? body.length : 0,
      type,
      linkpath: entry.linkpath,
      mtime: new Date('2026-01-01T00:00:00Z'),
      uid: 0,
      gid: 0,
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (type === 'File' && body.length > 0) {
      blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function tarGz(entries: readonly TarEntry[]): Buffer {
  return zlib.gzipSync(tar(entries), { level: 1 });
}

export interface ZipEntry {
  path: string;
  body?: Buffer | string;
  /** Unix mode kept in the external attributes (e.g. 0o120777 for a link); regular file by default. */
  mode?: number;
  /** What the headers claim the entry inflates to (defaults to the truth). */
  declaredSize?: number;
  deflate?: boolean;
}

/** A zip archive of the entries, with a central directory and Unix modes. */
export function zip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.path, 'utf8');
    const body = entry.body === undefined ? Buffer.alloc(0) : Buffer.from(entry.body);
    const data = entry.deflate ? zlib.deflateRawSync(body, { level: 1 }) : body;
    const crc = zlib.crc32(body);
    const size = entry.declaredSize ?? body.length;
    const mode = entry.mode ?? (entry.path.endsWith('/') ? 0o040755 : 0o100644);
    const method = entry.deflate ? 8 : 0;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // names in UTF-8
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x5c21, 12); // 2026-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, data);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 30, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x5c21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

// ---------------------------------------------------------------------------------------------
// Connector distributions

export interface DistributionOptions {
  id?: string;
  version?: string;
  name?: string;
  category?: string;
  /** Overrides merged into `metadata`. */
  metadata?: Record<string, unknown>;
  /** Replaces metadata.json's text entirely. */
  metadataText?: string;
  /** Replaces ui-config.json (or drops it when null). */
  uiConfig?: unknown;
  /** `root`: files at the archive root; `folder`: inside `<id>-<version>/` (a Python sdist). */
  layout?: 'root' | 'folder';
  /** Leaves out the `<id>-<version>` source folder (root layout only). */
  withoutSourceFolder?: boolean;
  /** Extra entries. */
  extra?: TarEntry[];
}

/** A connector's form, as a distribution's ui-config.json gives it. */
export function uiSpec(title: string): Record<string, unknown> {
  return {
    schema: {
      type: 'object',
      properties: {
        connector_config: { title, type: 'object', encrypt: true, properties: { host: { type: 'string' }, port: { type: 'integer', minimum: 1, maximum: 65535 } } },
        operations_config: { type: 'object', properties: { batch_size: { type: 'integer', default: 100 }, max_batches: { type: 'integer', default: 10 } } },
      },
    },
    properties: { connector_config: { host: { 'ui:autofocus': true } } },
  };
}

/** The entries of a valid (unless told otherwise) distribution. */
export function distributionEntries(options: DistributionOptions = {}): TarEntry[] {
  const id = options.id ?? 'test-connector';
  const version = options.version ?? '1.0.0';
  const folder = `${id}-${version}`;
  const metadata = {
    type: 'connector',
    metadata: {
      id,
      version,
      name: options.name ?? 'Test Connector',
      type: 'source',
      category: options.category ?? 'Database',
      description: 'Reads test rows',
      technology: 'python',
      runtime: 'spark',
      licence: 'MIT',
      owner: 'Tests',
      main_class: null,
      main_program: `${id.replaceAll('-', '_')}/__main__.py`,
      ...options.metadata,
    },
  };
  const prefix = options.layout === 'folder' ? `${folder}/` : '';
  const entries: TarEntry[] = [];
  if (options.layout === 'folder') entries.push({ path: `${folder}/` });
  entries.push({ path: `${prefix}metadata.json`, body: options.metadataText ?? JSON.stringify(metadata, null, 2) });
  if (options.uiConfig !== null) entries.push({ path: `${prefix}ui-config.json`, body: JSON.stringify(options.uiConfig ?? uiSpec(options.name ?? 'Test Connector')) });
  if (options.layout !== 'folder' && !options.withoutSourceFolder) entries.push({ path: `${folder}/` }, { path: `${folder}/main.py`, body: 'print("hello")\n' });
  if (options.layout === 'folder') entries.push({ path: `${prefix}requirements.txt`, body: 'requests\n' });
  entries.push(...(options.extra ?? []));
  return entries;
}

export function distributionTarGz(options: DistributionOptions = {}): Buffer {
  return tarGz(distributionEntries(options));
}

export function distributionZip(options: DistributionOptions = {}): Buffer {
  return zip(distributionEntries(options).map((entry) => ({ path: entry.path, body: entry.body, deflate: true })));
}

/** Bytes that are no archive at all. */
export function garbage(length = 4096): Buffer {
  return randomBytes(length);
}
