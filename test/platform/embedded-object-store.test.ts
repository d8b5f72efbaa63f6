// The embedded object store and the links the gateway serves for it: upload with PUT, download with
// GET, and 403 for a tampered, expired, wrong-method or foreign link; no key or link reaches a file
// outside the store. Links are made through the API (generateFileUrls) and used with fetch.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createFileService } from '../../src/modules/files/index.js';
import { EmbeddedObjectStore, LinkRefused } from '../../src/platform/object-store/embedded.js';
import { graphql } from '../support/api.js';
import { filesUnder, startStoreGateway, type StoreGateway } from '../support/connectors.js';

const SECRET = 'test-secret-for-embedded-links-0123456789';
let gw: StoreGateway;
beforeAll(async () => {
  gw = await startStoreGateway({ OBJECT_STORE_SECRET: SECRET, OBJECT_MAX_SIZE: '64kb' });
});
afterAll(async () => {
  await gw?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

async function link(name: string, access: 'READ' | 'WRITE'): Promise<{ filePath: string; url: string }> {
  const response = await graphql(gw, 'mutation($files: [String!]!, $access: FileAccess) { generateFileUrls(files: $files, access: $access) { filePath preSignedUrl } }', {
    files: [name],
    access,
  });
  expect(response.errors).toBeUndefined();
  const [entry] = response.data!.generateFileUrls as { filePath: string; preSignedUrl: string }[];
  return { filePath: entry!.filePath, url: entry!.preSignedUrl };
}

/** An upload link and the object it made, ready to download. */
async function uploaded(body: Buffer | string): Promise<{ filePath: string; read: string }> {
  const write = await link('object.bin', 'WRITE');
  expect((await fetch(write.url, { method: 'PUT', body: typeof body === 'string' ? body : new Uint8Array(body) })).status).toBe(200);
  return { filePath: write.filePath, read: (await link(write.filePath, 'READ')).url };
}

function withParam(url: string, name: string, value: string): string {
  const changed = new URL(url);
  changed.searchParams.set(name, value);
  return changed.toString();
}

/** The path and query of a link to `key`, signed exactly as the store signs, with the gateway's secret. */
function forge(key: string, method: string, expires: number): string {
  const signature = createHmac('sha256', SECRET).update(`${method}\n${key}\n${expires}`).digest('base64url');
  return `/objects/${key}?method=${method}&expires=${expires}&signature=${signature}`;
}

/** A GET of this exact path: unlike fetch, node's http client does not resolve `..` segments first. */
function rawGet(pathAndQuery: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${gw.url}${pathAndQuery}`.replace(pathAndQuery, ''), { path: pathAndQuery }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      })
      .on('error', reject);
  });
}

async function expectForbidden(url: string, init: RequestInit, reason: RegExp): Promise<void> {
  const response = await fetch(url, init);
  expect(response.status).toBe(403);
  expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(reason);
}

// ---------------------------------------------------------------------------------------------

describe('links served by the gateway', () => {
  it('stores the bytes PUT through an upload link and serves them back through a download link', async () => {
    const bytes = randomBytes(40 * 1024);
    const { filePath, read } = await uploaded(bytes);
    expect(await filesUnder(`${gw.dataDir}/objects`)).toContain(filePath);
    const response = await fetch(read);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-length')).toBe(String(bytes.length));
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('answers HEAD on a download link with the size and no body', async () => {
    const { read } = await uploaded('twelve bytes');
    const response = await fetch(read, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('12');
  });

  it('replaces an object whole when its upload link is used again', async () => {
    const write = await link('again.txt', 'WRITE');
    await fetch(write.url, { method: 'PUT', body: 'first version, longer' });
    await fetch(write.url, { method: 'PUT', body: 'second' });
    expect(await (await fetch((await link(write.filePath, 'READ')).url)).text()).toBe('second');
  });

  it('answers 403 to an upload link used for GET and a download link used for PUT', async () => {
    const { filePath, read } = await uploaded('kept');
    const write = await link('other.txt', 'WRITE');
    await expectForbidden(write.url, { method: 'GET' }, /allows PUT, not GET/);
    await expectForbidden(read, { method: 'PUT', body: 'overwrite' }, /allows GET, not PUT/);
    expect(await (await fetch(read)).text()).toBe('kept');
    expect(filePath).toMatch(/^user_uploads\//);
  });

  it('answers 403 to POST and DELETE on a link', async () => {
    const { read } = await uploaded('kept');
    await expectForbidden(read, { method: 'DELETE' }, /allows GET, not DELETE/);
    await expectForbidden(read, { method: 'POST', body: 'x' }, /allows GET, not POST/);
    expect(await (await fetch(read)).text()).toBe('kept');
  });

  it('answers 403 when the signature, the expiry, the method parameter or the key of a link was changed', async () => {
    const { read } = await uploaded('kept');
    const signature = new URL(read).searchParams.get('signature')!;
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    await expectForbidden(withParam(read, 'signature', flipped), {}, /signature does not match/);
    const expires = Number(new URL(read).searchParams.get('expires'));
    await expectForbidden(withParam(read, 'expires', String(expires + 3600)), {}, /signature does not match/);
    await expectForbidden(withParam(read, 'method', 'PUT'), { method: 'PUT', body: 'x' }, /signature does not match/);
    const otherKey = read.replace('/objects/user_uploads/', '/objects/user_uploads/x');
    await expectForbidden(otherKey, {}, /signature does not match/);
  });

  it('answers 403 to a link without its signature, expiry or method', async () => {
    const { read } = await uploaded('kept');
    for (const name of ['signature', 'expires', 'method']) {
      const url = new URL(read);
      url.searchParams.delete(name);
      await expectForbidden(url.toString(), {}, /not signed/);
    }
  });

  it('answers 403 to an expired link, however well signed', async () => {
    const { filePath } = await uploaded('kept');
    await expectForbidden(gw.url + forge(filePath, 'GET', Math.floor(Date.now() / 1000) - 1), {}, /expired/);
  });

  it('answers 403 to a link signed with another key', async () => {
    const store = new EmbeddedObjectStore({ dir: gw.dataDir, secret: 'another-secret-another-secret-another', secretFile: '', maxObjectBytes: 1024, baseUrl: () => gw.url });
    const { filePath } = await uploaded('kept');
    await expectForbidden(await store.signedUrl(filePath, 'read', 600), {}, /signature does not match/);
  });

  it('answers 404 to a valid download link for an object that was never uploaded', async () => {
    const response = await fetch((await link('never-uploaded.json', 'READ')).url);
    expect(response.status).toBe(404);
  });

  it('refuses an upload over the size limit with 413 and keeps nothing of it', async () => {
    const before = await filesUnder(`${gw.dataDir}/objects`);
    const write = await link('too-big.bin', 'WRITE');
    const response = await fetch(write.url, { method: 'PUT', body: new Uint8Array(randomBytes(64 * 1024 + 1)) });
    expect(response.status).toBe(413);
    expect(await filesUnder(`${gw.dataDir}/objects`)).toEqual(before);
  });

  it('refuses a path outside the store even with a valid signature for it', async () => {
    const expires = Math.floor(Date.now() / 1000) + 600;
    // DATA_DIR/object-store.secret would be the prize: one folder above the objects.
    for (const key of ['user_uploads/../../object-store.secret', '../object-store.secret', 'user_uploads/%2e%2e/%2e%2e/object-store.secret']) {
      const response = await rawGet(forge(key, 'GET', expires));
      expect(response.status).toBe(403);
      expect(response.body).not.toContain(SECRET);
    }
  });
});

describe('EmbeddedObjectStore', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'embedded-store-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses to sign or store a key that could name a place outside it', async () => {
    const store = new EmbeddedObjectStore({ dir: `${dir}/objects`, secret: SECRET, secretFile: '', maxObjectBytes: 1024, baseUrl: () => 'http://gateway' });
    for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a\\..\\b', 'a/\u0000/b', '']) {
      await expect(store.signedUrl(key, 'read', 600)).rejects.toThrow(/invalid object key/);
      await expect(store.putFile(key, path.join(dir, 'missing'))).rejects.toThrow(/invalid object key/);
    }
    expect(await filesUnder(dir)).toEqual([]);
  });

  it('refuses a link once its time is up', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = new EmbeddedObjectStore({ dir: `${dir}/objects`, secret: SECRET, secretFile: '', maxObjectBytes: 1024, baseUrl: () => 'http://gateway', now: () => now });
    const url = new URL(await store.signedUrl('user_uploads/a.json', 'read', 600));
    const query = Object.fromEntries(url.searchParams);
    now += 599_000;
    await expect(store.verify('user_uploads/a.json', 'GET', query)).resolves.toBeUndefined();
    now += 1_000;
    await expect(store.verify('user_uploads/a.json', 'GET', query)).rejects.toThrow(LinkRefused);
  });

  it('says the expiry its links carry, when a second turns while they are signed', async () => {
    // Every reading of the clock is 2 ms later, from the last millisecond of a second.
    let now = Date.parse('2026-01-01T00:00:00Z') - 1;
    const clock = () => (now += 2) - 2;
    const store = new EmbeddedObjectStore({ dir: `${dir}/objects`, secret: SECRET, secretFile: '', maxObjectBytes: 1024, baseUrl: () => 'http://gateway', now: clock });
    const files = createFileService(store, { urlLimit: 10, urlExpirySeconds: 600, now: clock });
    const links = await files.generateUrls({ files: ['a.json', 'b.json'], access: 'read' });
    for (const link of links) expect(Number(new URL(link.preSignedUrl).searchParams.get('expires'))).toBe(Math.floor(link.expiresAt.getTime() / 1000));
    const read = await files.readLink('user_uploads/a.json');
    expect(Number(new URL(read.url).searchParams.get('expires'))).toBe(Math.floor(read.expiresAt.getTime() / 1000));
  });

  it('keeps one signing key, in a file only its owner reads, so links survive a restart', async () => {
    const options = { dir: `${dir}/objects`, secretFile: `${dir}/object-store.secret`, maxObjectBytes: 1024, baseUrl: () => 'http://gateway' };
    const first = new EmbeddedObjectStore(options);
    const url = new URL(await first.signedUrl('user_uploads/a.json', 'write', 600));
    const restarted = new EmbeddedObjectStore(options);
    await expect(restarted.verify('user_uploads/a.json', 'PUT', Object.fromEntries(url.searchParams))).resolves.toBeUndefined();
    expect((await stat(options.secretFile)).mode & 0o777).toBe(0o600);
  });
});
