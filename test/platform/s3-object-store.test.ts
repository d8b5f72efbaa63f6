// The S3 object store (issue 7). S3 cannot run on these machines, so the adapter is checked on what it
// signs (the presigned link verified here with an independent SigV4 computation) and what it sends
// (a recording HTTP server stands in for S3, also behind a whole gateway); against s3rver when that
// package is installed; and against a real bucket only when S3_BUCKET is set:
// `S3_BUCKET=my-bucket [S3_ENDPOINT=...] npm test -- test/platform/s3-object-store.test.ts`.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { S3ObjectStore, type S3Settings } from '../../src/platform/object-store/s3.js';
import { envelope } from '../support/api.js';
import { distributionTarGz } from '../support/archives.js';
import { registerOverRest, registrySnapshot, startStoreGateway, type StoreGateway } from '../support/connectors.js';
import { describeWhen } from '../support/skip.js';

const ACCESS_KEY = 'AKIDEXAMPLETEST';
const SECRET_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const CREDENTIALS = { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY };

// ---------------------------------------------------------------------------------------------
// An HTTP server that records what it is sent and answers as S3 would (or as told).

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

class RecordingS3 {
  readonly requests: Recorded[] = [];
  answer: (request: Recorded) => { status: number; body?: string; headers?: Record<string, string> } = () => ({ status: 200, headers: { etag: '"etag"' } });
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
      this.requests.push(recorded);
      const answer = this.answer(recorded);
      res.writeHead(answer.status, { 'content-type': 'application/xml', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const ACCESS_DENIED = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';

// ---------------------------------------------------------------------------------------------
// SigV4 for presigned S3 links, computed independently of the SDK.

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** The signature a presigned link must carry for `method`, recomputed from the link's own parameters. */
function expectedSignature(link: URL, method: string, secret: string): string {
  const params = [...link.searchParams.entries()].filter(([name]) => name !== 'X-Amz-Signature');
  const query = params
    .map(([name, value]) => [rfc3986(name), rfc3986(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonical = [method, link.pathname, query, `host:${link.host}\n`, 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const amzDate = link.searchParams.get('X-Amz-Date')!;
  const scope = link.searchParams.get('X-Amz-Credential')!.split('/').slice(1).join('/');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const [date, region, service] = scope.split('/');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date!), region!), service!), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex');
}

// ---------------------------------------------------------------------------------------------

describe('S3ObjectStore: what it signs', () => {
  const settings: S3Settings = { bucket: 'uploads', region: 'eu-west-1', endpoint: 'http://127.0.0.1:9', forcePathStyle: true, credentials: CREDENTIALS };
  const store = new S3ObjectStore(settings);
  afterAll(() => store.close());

  it('signs an upload link: PUT of the key in the bucket, the given expiry, and a valid SigV4 signature', async () => {
    const link = new URL(await store.signedUrl('user_uploads/a b_123456.json', 'write', 600));
    expect(`${link.origin}${link.pathname}`).toBe('http://127.0.0.1:9/uploads/user_uploads/a%20b_123456.json');
    expect(link.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(link.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(link.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(link.searchParams.get('X-Amz-Credential')).toMatch(new RegExp(`^${ACCESS_KEY}/\\d{8}/eu-west-1/s3/aws4_request$`));
    expect(link.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(link, 'PUT', SECRET_KEY));
    // The signature is for PUT only, and for this secret only.
    expect(link.searchParams.get('X-Amz-Signature')).not.toBe(expectedSignature(link, 'GET', SECRET_KEY));
    expect(link.searchParams.get('X-Amz-Signature')).not.toBe(expectedSignature(link, 'PUT', 'another secret'));
  });

  it('signs upload links without a checksum of an empty body, which real S3 would hold against any upload', async () => {
    const link = new URL(await store.signedUrl('user_uploads/data.json', 'write', 600));
    const names = [...link.searchParams.keys()].map((name) => name.toLowerCase());
    expect(names.filter((name) => name.includes('checksum'))).toEqual([]);
  });

  it('signs a download link: GET of the key, with a valid signature', async () => {
    const link = new URL(await store.signedUrl('user_uploads/données.json', 'read', 120));
    expect(link.pathname).toBe('/uploads/user_uploads/donn%C3%A9es.json');
    expect(link.searchParams.get('X-Amz-Expires')).toBe('120');
    expect(link.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(link, 'GET', SECRET_KEY));
  });

  it('names the public endpoint in links when clients reach the store elsewhere (MinIO in compose), signed for that host', async () => {
    const behindCompose = new S3ObjectStore({ ...settings, endpoint: 'http://minio:9000', publicEndpoint: 'http://localhost:9000' });
    const link = new URL(await behindCompose.signedUrl('user_uploads/a.json', 'write', 600));
    expect(`${link.origin}${link.pathname}`).toBe('http://localhost:9000/uploads/user_uploads/a.json');
    expect(link.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(link, 'PUT', SECRET_KEY));
    await behindCompose.close();
  });

  it('addresses the bucket in the host name when path style is off (AWS itself)', async () => {
    const aws = new S3ObjectStore({ bucket: 'uploads', region: 'eu-west-1', forcePathStyle: false, credentials: CREDENTIALS });
    const link = new URL(await aws.signedUrl('user_uploads/a.json', 'read', 600));
    expect(link.host).toBe('uploads.s3.eu-west-1.amazonaws.com');
    expect(link.pathname).toBe('/user_uploads/a.json');
    await aws.close();
  });

  it('refuses to sign a key that could name a place outside the store', async () => {
    await expect(store.signedUrl('user_uploads/../../x', 'read', 600)).rejects.toThrow(/invalid object key/);
  });
});

describe('S3ObjectStore: what it sends', () => {
  const s3 = new RecordingS3();
  let store: S3ObjectStore;
  let dir: string;
  beforeAll(async () => {
    const endpoint = await s3.start();
    store = new S3ObjectStore({ bucket: 'uploads', region: 'us-east-1', endpoint, forcePathStyle: true, credentials: CREDENTIALS });
    dir = await mkdtemp(path.join(os.tmpdir(), 's3-store-'));
  });
  afterAll(async () => {
    await store?.close();
    await s3.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores a file with one signed PUT of its bytes, length and content type', async () => {
    const bytes = randomBytes(100_000);
    const file = path.join(dir, 'dist.tar.gz');
    await writeFile(file, bytes);
    s3.requests.length = 0;
    await store.putFile('connectors/dist_abcdef.tar.gz', file, 'application/gzip');
    expect(s3.requests).toHaveLength(1);
    const [put] = s3.requests;
    expect(put!.method).toBe('PUT');
    expect(put!.url.split('?')[0]).toBe('/uploads/connectors/dist_abcdef.tar.gz');
    expect(put!.headers['content-length']).toBe(String(bytes.length));
    expect(put!.headers['content-type']).toBe('application/gzip');
    expect(put!.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY}/\\d{8}/us-east-1/s3/aws4_request`));
    expect(put!.body.equals(bytes)).toBe(true);
  });

  it('deletes with one DELETE of the key', async () => {
    s3.requests.length = 0;
    s3.answer = () => ({ status: 204 });
    await store.delete('connectors/dist_abcdef.tar.gz');
    expect(s3.requests.map((request) => `${request.method} ${request.url.split('?')[0]}`)).toEqual(['DELETE /uploads/connectors/dist_abcdef.tar.gz']);
  });

  it('rejects when S3 refuses the upload', async () => {
    const file = path.join(dir, 'refused.bin');
    await writeFile(file, 'x');
    s3.answer = () => ({ status: 403, body: ACCESS_DENIED });
    await expect(store.putFile('connectors/refused.bin', file, 'application/octet-stream')).rejects.toThrow(/Access Denied/);
  });
});

describe('a gateway whose object store is S3', () => {
  const s3 = new RecordingS3();
  let endpoint: string;
  let gw: StoreGateway;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  beforeAll(async () => {
    endpoint = await s3.start();
    // Credentials come from the SDK's standard chain; the environment is its first link.
    process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY;
    process.env.AWS_SECRET_ACCESS_KEY = SECRET_KEY;
    gw = await startStoreGateway({ S3_BUCKET: 'uploads', S3_ENDPOINT: endpoint, S3_REGION: 'us-east-1' });
  });
  afterAll(async () => {
    await gw?.stop();
    await s3.stop();
    for (const [name, value] of [
      ['AWS_ACCESS_KEY_ID', saved.id],
      ['AWS_SECRET_ACCESS_KEY', saved.secret],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('answers generate-url with S3 links for the bucket, signed for 600 seconds', async () => {
    const response = await gw.http.post('/v2/files/generate-url').send(envelope('api.files.generate-url', { files: ['telemetry.json'] }));
    expect(response.status).toBe(200);
    const [entry] = response.body.result as { filePath: string; preSignedUrl: string }[];
    const link = new URL(entry!.preSignedUrl);
    expect(`${link.origin}${link.pathname}`).toBe(`${endpoint}/uploads/${entry!.filePath}`);
    expect(link.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(link.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(link, 'PUT', SECRET_KEY));
  });

  it('stores a registered distribution in the bucket under connectors/', async () => {
    s3.requests.length = 0;
    s3.answer = () => ({ status: 200, headers: { etag: '"etag"' } });
    const bytes = distributionTarGz({ id: 's3-registered' });
    expect((await registerOverRest(gw, bytes, 's3-registered.tar.gz')).status).toBe(200);
    const puts = s3.requests.filter((request) => request.method === 'PUT');
    expect(puts).toHaveLength(1);
    expect(puts[0]!.url.split('?')[0]).toMatch(/^\/uploads\/connectors\/s3-registered_[0-9a-f]{6}\.tar\.gz$/);
    expect(puts[0]!.body.equals(bytes)).toBe(true);
    const row = await gw.sql<{ source_url: string }>('SELECT source_url FROM connector_registry WHERE id = $1', ['s3-registered-1.0.0']);
    expect(`/uploads/${row.rows[0]!.source_url}`).toBe(puts[0]!.url.split('?')[0]);
  });

  it('refuses the registration with FAILED_TO_REGISTER_CONNECTOR when S3 refuses the archive, changing nothing', async () => {
    s3.answer = () => ({ status: 403, body: ACCESS_DENIED });
    const registry = await registrySnapshot(gw);
    const response = await registerOverRest(gw, distributionTarGz({ id: 's3-refused' }), 's3-refused.tar.gz');
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 500, code: 'FAILED_TO_REGISTER_CONNECTOR' });
    expect(response.body.error.message).toMatch(/the distribution could not be stored/);
    expect(await registrySnapshot(gw)).toEqual(registry);
  });

  it("removes the stored archive when the registry then refuses the version (its id is another connector version's)", async () => {
    s3.answer = (request) => (request.method === 'DELETE' ? { status: 204 } : { status: 200, headers: { etag: '"etag"' } });
    expect((await registerOverRest(gw, distributionTarGz({ id: 's3-clash-1', version: '0' }), 'a.tar.gz')).status).toBe(200);
    s3.requests.length = 0;
    const registry = await registrySnapshot(gw);
    // connector "s3-clash" version "1-0" would also be "s3-clash-1-0".
    const response = await registerOverRest(gw, distributionTarGz({ id: 's3-clash', version: '1-0' }), 'b.tar.gz');
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 500, code: 'FAILED_TO_REGISTER_CONNECTOR' });
    expect(response.body.error.message).toMatch(/s3-clash-1-0 is taken/);
    const [put, remove] = s3.requests;
    expect(put!.method).toBe('PUT');
    expect(remove!.method).toBe('DELETE');
    expect(remove!.url.split('?')[0]).toBe(put!.url.split('?')[0]);
    expect(await registrySnapshot(gw)).toEqual(registry);
  });
});

// ---------------------------------------------------------------------------------------------
// Against s3rver (an S3-compatible server on npm), when it is installed.

function installed(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

const hasS3rver = installed('s3rver');
const withS3rver = describeWhen(hasS3rver, 'the npm package s3rver is not installed');

withS3rver('S3ObjectStore against s3rver', () => {
  let server: { run(): Promise<AddressInfo>; close(): Promise<void> };
  let store: S3ObjectStore;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 's3rver-'));
    const moduleName = 's3rver';
    const { default: S3rver } = (await import(moduleName)) as { default: new (options: Record<string, unknown>) => typeof server };
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: 'uploads' }] });
    const { port } = await server.run();
    store = new S3ObjectStore({
      bucket: 'uploads',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
  });
  afterAll(async () => {
    await store?.close();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('uploads through a signed PUT link and downloads the same bytes through a signed GET link', async () => {
    const bytes = randomBytes(300_000);
    const key = `user_uploads/${randomUUID()}.bin`;
    expect((await fetch(await store.signedUrl(key, 'write', 600), { method: 'PUT', body: new Uint8Array(bytes) })).status).toBe(200);
    const download = await fetch(await store.signedUrl(key, 'read', 600));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('stores a file and deletes it', async () => {
    const file = path.join(dir, 'dist.tar.gz');
    await writeFile(file, 'distribution');
    await store.putFile('connectors/dist.tar.gz', file, 'application/gzip');
    expect(await (await fetch(await store.signedUrl('connectors/dist.tar.gz', 'read', 600))).text()).toBe('distribution');
    await store.delete('connectors/dist.tar.gz');
    expect((await fetch(await store.signedUrl('connectors/dist.tar.gz', 'read', 600))).status).toBe(404);
  });
});

// ---------------------------------------------------------------------------------------------
// Against a real bucket, when S3_BUCKET is set (credentials from the standard AWS chain).

const bucket = process.env.S3_BUCKET;
const withBucket = describeWhen(bucket, 'S3_BUCKET is not set');

withBucket('S3ObjectStore against the bucket in S3_BUCKET', () => {
  const store = new S3ObjectStore({
    bucket: bucket ?? '',
    region: process.env.S3_REGION ?? 'us-east-1',
    ...(process.env.S3_ENDPOINT ? { endpoint: process.env.S3_ENDPOINT } : {}),
    forcePathStyle: process.env.S3_ENDPOINT !== undefined,
  });
  afterAll(() => store.close());

  it('uploads through a signed link, downloads the same bytes, and deletes', async () => {
    const key = `gateway-test/${randomUUID()}.bin`;
    const bytes = randomBytes(64 * 1024);
    expect((await fetch(await store.signedUrl(key, 'write', 600), { method: 'PUT', body: new Uint8Array(bytes) })).status).toBe(200);
    const download = await fetch(await store.signedUrl(key, 'read', 600));
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    await store.delete(key);
    expect((await fetch(await store.signedUrl(key, 'read', 600))).status).toBeGreaterThanOrEqual(400);
  });
});
