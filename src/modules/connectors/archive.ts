// Extracts an uploaded connector distribution (.tar.gz/.tgz or .zip) into a folder of its own, and
// refuses, before writing it, any entry that could do harm:
// - a path that is absolute, climbs out with `..`, holds a backslash or a control character;
// - a symbolic or hard link (a link is how an archive writes outside the folder later), a device,
//   a FIFO, or any entry that is neither a file nor a directory;
// - more entries than allowed, an entry larger than allowed, or more bytes in all than allowed
//   (decompression bombs), counted on the bytes actually decompressed as well as on the headers;
// - two entries writing the same file.
// Nothing is ever written through a link (none is created) and every target path is resolved and
// checked to lie inside the folder. On refusal the caller deletes the folder.
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Transform, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Parser, type ReadEntry } from 'tar';
import yauzl from 'yauzl';

export type ArchiveFormat = 'tar.gz' | 'zip';

export interface ExtractionLimits {
  maxEntries: number;
  /** Largest uncompressed size of one entry. */
  maxEntryBytes: number;
  /** Largest uncompressed size of all entries together. */
  maxTotalBytes: number;
}

export interface ExtractionSummary {
  entries: number;
  bytes: number;
}

/** The archive is unreadable or breaks a rule; the message says which and where. */
export class ArchiveRefused extends Error {
  override readonly name = 'ArchiveRefused';
}

/** The format an upload's file name announces; undefined for anything else. */
export function archiveFormatOf(fileName: string): ArchiveFormat | undefined {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  if (lower.endsWith('.zip')) return 'zip';
  return undefined;
}

const MAX_PATH_LENGTH = 4096;
const MAX_DEPTH = 64;
// C0 and C1 control characters, DEL included.
const CONTROL_CHARACTERS = /\p{Cc}/u;
// Pax and GNU long-name records: tar reads them as metadata; they never need to be large.
const MAX_TAR_META_BYTES = 64 * 1024;

/** The checked path segments of an entry name ([] for the archive root itself). */
export function entrySegments(name: string): string[] {
  const shown = JSON.stringify(name.slice(0, 200));
  if (name.length > MAX_PATH_LENGTH) throw new ArchiveRefused(`entry ${shown}: the path is longer than ${MAX_PATH_LENGTH} characters`);
  if (CONTROL_CHARACTERS.test(name)) throw new ArchiveRefused(`entry ${shown}: the path contains control characters`);
  if (name.includes('\\')) throw new ArchiveRefused(`entry ${shown}: the path contains a backslash`);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new ArchiveRefused(`entry ${shown}: absolute paths are not allowed`);
  const segments = name.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw new ArchiveRefused(`entry ${shown}: paths that climb out of the archive ('..') are not allowed`);
  if (segments.length > MAX_DEPTH) throw new ArchiveRefused(`entry ${shown}: the path is deeper than ${MAX_DEPTH} folders`);
  return segments;
}

/** Bookkeeping of one extraction: where entries go, and how much has been written. */
class Extraction {
  private readonly root: string;
  private entries = 0;
  private declaredBytes = 0;
  private writtenBytes = 0;
  private readonly sinks = new Set<Writable>();
  /** What each path written so far is, decided as entries arrive (before any file is opened). */
  private readonly kinds = new Map<string, 'file' | 'folder'>();

  constructor(
    destination: string,
    private readonly limits: ExtractionLimits,
  ) {
    this.root = path.resolve(destination);
    mkdirSync(this.root, { recursive: true });
  }

  summary(): ExtractionSummary {
    return { entries: this.entries, bytes: this.writtenBytes };
  }

  countEntry(): void {
    this.entries += 1;
    if (this.entries > this.limits.maxEntries) {
      throw new ArchiveRefused(`the archive has more than ${this.limits.maxEntries} entries (CONNECTOR_ARCHIVE_MAX_ENTRIES)`);
    }
  }

  directory(name: string): void {
    const target = this.target(name);
    if (target) this.mkdir(target, name);
  }

  /** A writable for one file entry; `done` settles once it is on disk (or refused). */
  file(name: string, declaredSize: number): { sink: Writable; done: Promise<void> } {
    const shown = JSON.stringify(name.slice(0, 200));
    const target = this.target(name);
    if (!target) throw new ArchiveRefused(`entry ${shown}: a file cannot be the archive root`);
    const known = this.kinds.get(target);
    if (known === 'file') throw new ArchiveRefused(`entry ${shown}: the archive holds this file twice`);
    if (known === 'folder') throw new ArchiveRefused(`entry ${shown}: a file and a folder of the archive have the same path`);
    this.checkSize(name, declaredSize);
    this.mkdir(path.dirname(target), name);
    this.kinds.set(target, 'file');

    let entryBytes = 0;
    const limits = this.limits;
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding, next) => {
        entryBytes += chunk.length;
        this.writtenBytes += chunk.length;
        // Headers can lie; the bytes that come out of the decompressor cannot.
        if (entryBytes > limits.maxEntryBytes) next(new ArchiveRefused(`entry ${shown}: larger than the ${limits.maxEntryBytes}-byte limit for one entry (CONNECTOR_ARCHIVE_MAX_ENTRY_SIZE)`));
        else if (this.writtenBytes > limits.maxTotalBytes) next(new ArchiveRefused(`the archive unpacks to more than the ${limits.maxTotalBytes}-byte limit (CONNECTOR_ARCHIVE_MAX_TOTAL_SIZE)`));
        else next(null, chunk);
      },
    });
    // 'wx': never overwrite; a second entry for the same file is refused.
    const output = createWriteStream(target, { flags: 'wx', mode: 0o644 });
    this.sinks.add(counter);
    this.sinks.add(output);
    const done = pipeline(counter, output).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') throw new ArchiveRefused(`entry ${shown}: the archive holds this file twice`);
      throw error;
    });
    return { sink: counter, done };
  }

  /**
   * Stops every write in progress (after a refusal) and settles once each is closed: a file stream
   * still opening creates its file after destroy(), so the caller must wait before it removes the
   * extraction folder (else rm meets a folder that is not empty, and a file may be left behind).
   */
  abort(): Promise<void> {
    const closed = [...this.sinks].map((sink) => (sink.closed ? undefined : new Promise<void>((resolve) => sink.once('close', () => resolve()))));
    for (const sink of this.sinks) {
      // A late write from the decompressor must not surface as an unhandled 'error' event.
      sink.on('error', () => undefined);
      sink.destroy();
    }
    return Promise.all(closed.filter((pending) => pending !== undefined)).then(() => undefined);
  }

  private checkSize(name: string, declaredSize: number): void {
    if (declaredSize > this.limits.maxEntryBytes) {
      throw new ArchiveRefused(`entry ${JSON.stringify(name.slice(0, 200))}: larger than the ${this.limits.maxEntryBytes}-byte limit for one entry (CONNECTOR_ARCHIVE_MAX_ENTRY_SIZE)`);
    }
    this.declaredBytes += declaredSize;
    if (this.declaredBytes > this.limits.maxTotalBytes) throw new ArchiveRefused(`the archive unpacks to more than the ${this.limits.maxTotalBytes}-byte limit (CONNECTOR_ARCHIVE_MAX_TOTAL_SIZE)`);
  }

  private target(name: string): string | undefined {
    const segments = entrySegments(name);
    if (segments.length === 0) return undefined;
    const target = path.resolve(this.root, ...segments);
    // Cannot fail after entrySegments' checks; kept so that no later change can make it fail silently.
    if (!target.startsWith(this.root + path.sep)) throw new ArchiveRefused(`entry ${JSON.stringify(name.slice(0, 200))}: resolves outside the extraction folder`);
    return target;
  }

  private mkdir(target: string, name: string): void {
    for (let folder = target; folder.startsWith(this.root + path.sep); folder = path.dirname(folder)) {
      if (this.kinds.get(folder) === 'file') throw new ArchiveRefused(`entry ${JSON.stringify(name.slice(0, 200))}: a file and a folder of the archive have the same path`);
      this.kinds.set(folder, 'folder');
    }
    try {
      mkdirSync(target, { recursive: true, mode: 0o755 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR') {
        throw new ArchiveRefused(`entry ${JSON.stringify(name.slice(0, 200))}: a file and a folder of the archive have the same path`);
      }
      throw error;
    }
  }
}

function asRefusal(error: unknown): ArchiveRefused {
  if (error instanceof ArchiveRefused) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ArchiveRefused(`the archive could not be read: ${message}`);
}

const TAR_FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

function extractTar(archivePath: string, extraction: Extraction): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const writes: Promise<void>[] = [];
    const source = createReadStream(archivePath);

    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      source.destroy();
      void extraction.abort().then(() => reject(asRefusal(error)));
    };

    const onReadEntry = (entry: ReadEntry) => {
      if (settled) return entry.resume();
      try {
        extraction.countEntry();
        if (entry.type === 'Directory') {
          extraction.directory(entry.path);
          entry.resume();
        } else if (TAR_FILE_TYPES.has(entry.type)) {
          const { sink, done } = extraction.file(entry.path, entry.size ?? 0);
          writes.push(done);
          done.catch(fail);
          entry.pipe(sink);
        } else if (entry.type === 'SymbolicLink' || entry.type === 'Link') {
          throw new ArchiveRefused(`entry ${JSON.stringify(entry.path.slice(0, 200))}: links are not allowed (it points to ${JSON.stringify(String(entry.linkpath).slice(0, 200))})`);
        } else {
          throw new ArchiveRefused(`entry ${JSON.stringify(entry.path.slice(0, 200))}: entries of type ${entry.type} are not allowed`);
        }
      } catch (error) {
        entry.resume();
        fail(error);
      }
    };

    // strict: a damaged header, a bad checksum or a truncated archive is an error, not a warning.
    const parser = new Parser({ strict: true, maxMetaEntrySize: MAX_TAR_META_BYTES, onReadEntry });
    parser.on('error', fail);
    parser.on('warn', (_code: string, message: unknown) => fail(new Error(String(message))));
    parser.on('end', () => {
      if (settled) return;
      Promise.all(writes).then(() => {
        if (settled) return;
        settled = true;
        resolve();
      }, fail);
    });
    source.on('error', fail);
    source.pipe(parser);
  });
}

/**
 * Reads a tar's headers only, and refuses it once it holds more than `maxEntries`: a tar has no
 * directory of its entries (a zip has), so without this pass its first `maxEntries` files were
 * written before the refusal (10,000 one-byte entries took ~3.5 s). A damaged archive is left to
 * the extraction, which says what is wrong with it.
 */
function refuseTooManyTarEntries(archivePath: string, maxEntries: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let entries = 0;
    let settled = false;
    const source = createReadStream(archivePath);
    const settle = (refusal?: ArchiveRefused) => {
      if (settled) return;
      settled = true;
      source.destroy();
      if (refusal) reject(refusal);
      else resolve();
    };
    const parser = new Parser({
      strict: true,
      maxMetaEntrySize: MAX_TAR_META_BYTES,
      onReadEntry: (entry: ReadEntry) => {
        entries += 1;
        entry.resume();
        if (entries > maxEntries) settle(new ArchiveRefused(`the archive has more than ${maxEntries} entries (CONNECTOR_ARCHIVE_MAX_ENTRIES)`));
      },
    });
    parser.on('error', () => settle());
    parser.on('warn', () => settle());
    parser.on('end', () => settle());
    source.on('error', () => settle());
    source.pipe(parser);
  });
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

function extractZip(archivePath: string, extraction: Extraction, limits: ExtractionLimits): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let zip: yauzl.ZipFile | undefined;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      zip?.close();
      void extraction.abort().then(() => reject(asRefusal(error)));
    };

    // yauzl itself refuses absolute and `..` names (strictFileNames also refuses backslashes) and
    // checks that each entry inflates to exactly the size its header gives.
    yauzl.open(archivePath, { lazyEntries: true, autoClose: true, strictFileNames: true, validateEntrySizes: true, decodeStrings: true }, (openError, opened) => {
      if (openError) return fail(openError);
      zip = opened;
      // The central directory gives the count up front: a 10,000-entry archive is refused unread.
      if (opened.entryCount > limits.maxEntries)
        return fail(new ArchiveRefused(`the archive has ${opened.entryCount} entries; at most ${limits.maxEntries} are allowed (CONNECTOR_ARCHIVE_MAX_ENTRIES)`));
      opened.on('error', fail);
      opened.on('end', () => {
        if (settled) return;
        settled = true;
        resolve();
      });
      opened.on('entry', (entry: yauzl.Entry) => {
        if (settled) return;
        try {
          extraction.countEntry();
          const name = entry.fileName;
          const shown = JSON.stringify(name.slice(0, 200));
          // Unix zips keep the file mode in the high half of the external attributes.
          const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
          if (mode === S_IFLNK) throw new ArchiveRefused(`entry ${shown}: links are not allowed`);
          if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR) throw new ArchiveRefused(`entry ${shown}: only files and folders are allowed`);
          if (name.endsWith('/') || mode === S_IFDIR) {
            extraction.directory(name);
            opened.readEntry();
            return;
          }
          if (entry.isEncrypted()) throw new ArchiveRefused(`entry ${shown}: encrypted entries are not supported`);
          const { sink, done } = extraction.file(name, entry.uncompressedSize);
          opened.openReadStream(entry, (streamError, stream: Readable) => {
            if (streamError) return fail(streamError);
            stream.on('error', fail);
            stream.pipe(sink);
            done.then(() => opened.readEntry(), fail);
          });
        } catch (error) {
          fail(error);
        }
      });
      opened.readEntry();
    });
  });
}

/** Extracts `archivePath` into `destination` under the limits; throws ArchiveRefused saying why not. */
export async function extractArchive(archivePath: string, format: ArchiveFormat, destination: string, limits: ExtractionLimits): Promise<ExtractionSummary> {
  const extraction = new Extraction(destination, limits);
  if (format === 'zip') await extractZip(archivePath, extraction, limits);
  else {
    await refuseTooManyTarEntries(archivePath, limits.maxEntries);
    await extractTar(archivePath, extraction);
  }
  return extraction.summary();
}
