// The embedded object store: a folder (DATA_DIR/objects by default) whose upload and download links
// are served by the gateway itself (src/http/embedded-object-store.ts). A link carries its method
// and expiry and an HMAC-SHA256 over method, key and expiry, so changing any of them, or using it
// after it expires, gets 403. Keys are checked segment by segment and every path is resolved and
// checked to lie inside the folder, so no key or link can reach a file outside it.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { copyFile, mkdir, realpath, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { keptSecret, memoisedKey } from '../secrets/kept-secret.js';
import { assertObjectKey, encodeObjectKey, type LinkAccess, type ObjectStore } from './object-store.js';

/** Where the gateway serves embedded links. */
export const EMBEDDED_LINK_PREFIX = '/objects';

export interface EmbeddedObjectStoreOptions {
  /** The folder holding the objects. */
  dir: string;
  /** Signing key; when absent one is generated once and kept in `secretFile`. */
  secret?: string;
  secretFile: string;
  /** Largest object an upload link accepts. */
  maxObjectBytes: number;
  /** Base URL clients reach the gateway at (known only once it listens, hence a function). */
  baseUrl: () => string;
  now?: () => number;
}

export type LinkMethod = 'GET' | 'PUT';

/** Why a link is refused (always answered with 403). */
export class LinkRefused extends Error {
  override readonly name = 'LinkRefused';
}

/** The upload went over the store's size limit. */
export class ObjectTooLarge extends Error {
  override readonly name = 'ObjectTooLarge';
}

const SECRET_BYTES = 32;

export class EmbeddedObjectStore implements ObjectStore {
  readonly name: string;
  readonly maxObjectBytes: number;
  private readonly root: string;

  constructor(private readonly options: EmbeddedObjectStoreOptions) {
    this.root = path.resolve(options.dir);
    this.maxObjectBytes = options.maxObjectBytes;
    this.name = `embedded object store in ${this.root}`;
  }

  async signedUrl(key: string, access: LinkAccess, expiresInSeconds: number, signedAt = this.now()): Promise<string> {
    assertObjectKey(key);
    const method: LinkMethod = access === 'write' ? 'PUT' : 'GET';
    const expires = Math.floor(signedAt / 1000) + expiresInSeconds;
    const signature = await this.sign(method, key, expires);
    const query = new URLSearchParams({ method, expires: String(expires), signature });
    return `${this.options.baseUrl()}${EMBEDDED_LINK_PREFIX}/${encodeObjectKey(key)}?${query}`;
  }

  /**
   * Checks a link as it arrives: the method used must be the one signed (HEAD counts as GET), it
   * must not have expired, and the signature must match. Throws LinkRefused saying why.
   */
  async verify(key: string, method: string, query: Record<string, unknown>): Promise<void> {
    const { method: signedMethod, expires, signature } = query;
    if (typeof signedMethod !== 'string' || typeof expires !== 'string' || typeof signature !== 'string') {
      throw new LinkRefused('the link is not signed (method, expires and signature are required)');
    }
    const used = method === 'HEAD' ? 'GET' : method;
    if (used !== signedMethod) throw new LinkRefused(`the link allows ${signedMethod}, not ${method}`);
    if (!/^\d{1,12}$/.test(expires)) throw new LinkRefused('the link has an invalid expiry');
    if (Number(expires) * 1000 <= this.now()) throw new LinkRefused('the link has expired');
    try {
      assertObjectKey(key);
    } catch {
      throw new LinkRefused('the link does not name a valid object');
    }
    const expected = Buffer.from(await this.sign(signedMethod as LinkMethod, key, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new LinkRefused('the link signature does not match');
    }
  }

  /** Writes an uploaded body under `key`; the object appears whole, or not at all. */
  async putStream(key: string, body: Readable): Promise<number> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const partial = `${target}.${randomUUID()}.partial`;
    let size = 0;
    const limit = this.maxObjectBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > limit) done(new ObjectTooLarge(`the object is larger than the ${limit}-byte limit (OBJECT_MAX_SIZE)`));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return size;
  }

  /** A stream of the object and its size, or undefined when there is none. */
  async openRead(key: string): Promise<{ stream: ReadStream; size: number } | undefined> {
    const target = this.pathOf(key);
    let real: string;
    try {
      real = await realpath(target);
    } catch {
      return undefined;
    }
    // A link planted in the folder by hand must not lead outside it either.
    if (!this.isInside(real, await realpath(this.root))) return undefined;
    const info = await stat(real);
    if (!info.isFile()) return undefined;
    return { stream: createReadStream(real), size: info.size };
  }

  async putFile(key: string, filePath: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const partial = `${target}.${randomUUID()}.partial`;
    try {
      await copyFile(filePath, partial);
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async close(): Promise<void> {}

  /** The file of a key, checked to lie inside the store. */
  private pathOf(key: string): string {
    assertObjectKey(key);
    const target = path.resolve(this.root, ...key.split('/'));
    if (!this.isInside(target, this.root)) throw new Error(`object key ${JSON.stringify(key)} resolves outside the store`);
    return target;
  }

  private isInside(target: string, root: string): boolean {
    return target.startsWith(root + path.sep);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private async sign(method: LinkMethod, key: string, expires: number): Promise<string> {
    const secret = await this.signingKey();
    return createHmac('sha256', secret).update(`${method}\n${key}\n${expires}`).digest('base64url');
  }

  /** The configured key, else the one kept in secretFile (made on first use, so links survive restarts). */
  private readonly signingKey = memoisedKey(async () => (this.options.secret ? Buffer.from(this.options.secret) : keptSecret(this.options.secretFile, SECRET_BYTES)));
}
