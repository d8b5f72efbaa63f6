// A random key made once and kept in a file, for embedded defaults that must survive restarts (link
// signing, connector-config encryption) without anyone configuring a key.
import { randomBytes, randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The key kept (hex) in `file`, made with `bytes` random bytes on first use. */
export async function keptSecret(file: string, bytes: number): Promise<Buffer> {
  try {
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true });
  // Written aside and hard-linked into place, so a reader never sees a half-written key.
  const partial = `${file}.${randomUUID()}.partial`;
  await writeFile(partial, randomBytes(bytes).toString('hex'), { flag: 'wx', mode: 0o600 });
  try {
    await link(partial, file);
  } catch (error) {
    // Another gateway sharing the folder made it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(partial, { force: true });
  }
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'hex');
}

/**
 * Memoises a key source; a failed attempt (e.g. a read-only folder) is retried on the next call
 * rather than cached.
 */
export function memoisedKey(load: () => Promise<Buffer>): () => Promise<Buffer> {
  let pending: Promise<Buffer> | undefined;
  return () => {
    if (!pending) {
      pending = load();
      pending.catch(() => {
        pending = undefined;
      });
    }
    return pending;
  };
}
