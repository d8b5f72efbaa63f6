// The S3 object store (issues 7, 50). The adapter is checked on what it signs (the presigned link
// verified here with an independent SigV4 computation) and what it sends (a recording HTTP server
// stands in for S3, also behind a whole gateway, where a refusal must be a given answer); then
// against a real S3, Ceph's RADOS Gateway from Debian (test/support/rgw.ts), which checks every
// signature: links, tampered links, wrong secrets, wrong buckets, no credentials, archives, exports,
// and a store that dies in the middle of a request.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ObjectStoreFailure } from '../../src/platform/object-store/object-store.js';
import { S3ObjectStore, type S3Settings } from '../../src/platform/object-store/s3.js';
import { gunzipSync } from 'node:zlib';
import { envelope } from '../support/api.js';
import { distributionTarGz } from '../support/archives.js';
import { registerOverRest, registrySnapshot, startStoreGateway, type StoreGateway } from '../support/connectors.js';
import { lineCollector, type Line } from '../support/log-lines.js';
import { rgwInstalled, startRgw, type RunningRgw } from '../support/rgw.js';
import { describeWhenInstalled } from '../support/skip.js';
import { seedDataset } from '../support/datasets.js';
import { ingestEvents } from '../support/template-run.js';

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
    expect(response.body.error.message).toBe('Failed to register connector: the distribution could not be stored: the object store refused (AccessDenied, HTTP 403)');
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
// Against Ceph's RADOS Gateway: a real S3 that checks every signature. Started once for the file.

/** Sets environment variables (undefined: removes) and gives back a function that restores them. */
function setEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(vars);
  return () => apply(saved);
}

/** What the SDK's credential chain could find besides the environment, pointed at nothing. */
const NO_OTHER_CREDENTIALS = { AWS_PROFILE: undefined, AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials', AWS_CONFIG_FILE: '/nonexistent/config', AWS_WEB_IDENTITY_TOKEN_FILE: undefined };

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const failedRequests = (lines: Line[]) => lines.filter((line) => line.msg === 'request failed');

describeWhenInstalled(rgwInstalled, 'radosgw ceph-mon ceph-osd')('against Ceph RGW, a real S3', () => {
  let rgw: RunningRgw;
  let restoreEnv: () => void;
  const BUCKET = 'uploads';
  const storeOf = (overrides: Partial<S3Settings> = {}) =>
    new S3ObjectStore({
      bucket: BUCKET,
      region: rgw.region,
      endpoint: rgw.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
      ...overrides,
    });
  const gatewayEnv = (bucket = BUCKET) => ({ S3_BUCKET: bucket, S3_ENDPOINT: rgw.endpoint, S3_REGION: rgw.region });

  beforeAll(async () => {
    const started = Date.now();
    rgw = await startRgw();
    await rgw.createBucket(BUCKET);
    process.stdout.write(`RGW started with a bucket in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    // The gateways below take credentials from the SDK's standard chain, whose first link is the environment.
    restoreEnv = setEnv({ ...NO_OTHER_CREDENTIALS, AWS_ACCESS_KEY_ID: rgw.accessKeyId, AWS_SECRET_ACCESS_KEY: rgw.secretAccessKey, AWS_EC2_METADATA_DISABLED: undefined });
  }, 120_000);
  afterAll(async () => {
    restoreEnv?.();
    await rgw?.stop();
  }, 30_000);

  describe('links', () => {
    let store: S3ObjectStore;
    beforeAll(() => {
      store = storeOf();
    });
    afterAll(() => store?.close());

    it('uploads through a signed PUT link and downloads the same bytes through a signed GET link', async () => {
      const bytes = randomBytes(300_000);
      const key = `user_uploads/${randomUUID()}.bin`;
      expect((await fetch(await store.signedUrl(key, 'write', 600), { method: 'PUT', body: new Uint8Array(bytes) })).status).toBe(200);
      const download = await fetch(await store.signedUrl(key, 'read', 600));
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    });

    it('refuses a link whose signature was changed, a link signed with another secret, and a link used for another method', async () => {
      const key = `user_uploads/${randomUUID()}.txt`;
      await fetch(await store.signedUrl(key, 'write', 600), { method: 'PUT', body: 'kept' });
      const link = new URL(await store.signedUrl(key, 'read', 600));
      const signature = link.searchParams.get('X-Amz-Signature')!;
      link.searchParams.set('X-Amz-Signature', `${signature[0] === '0' ? '1' : '0'}${signature.slice(1)}`);
      const tampered = await fetch(link);
      expect(tampered.status).toBe(403);
      expect(await tampered.text()).toContain('<Code>SignatureDoesNotMatch</Code>');

      const forged = storeOf({ credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: 'not-the-secret' } });
      const wrongSecret = await fetch(await forged.signedUrl(key, 'read', 600));
      await forged.close();
      expect(wrongSecret.status).toBe(403);
      expect(await wrongSecret.text()).toContain('<Code>SignatureDoesNotMatch</Code>');

      // An upload link does not download, nor a download link upload.
      expect((await fetch(await store.signedUrl(key, 'write', 600))).status).toBe(403);
      expect((await fetch(await store.signedUrl(key, 'read', 600), { method: 'PUT', body: 'replaced' })).status).toBe(403);
      expect(await (await fetch(await store.signedUrl(key, 'read', 600))).text()).toBe('kept');
    });

    it('refuses a link once it has expired', async () => {
      const key = `user_uploads/${randomUUID()}.txt`;
      await fetch(await store.signedUrl(key, 'write', 600), { method: 'PUT', body: 'x' });
      const link = await store.signedUrl(key, 'read', 1);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect((await fetch(link)).status).toBe(403);
    });

    it('stores a 12 MB file and deletes it', async () => {
      const file = path.join(os.tmpdir(), `s3-big-${randomUUID()}.bin`);
      const bytes = randomBytes(12 * 1024 * 1024);
      await writeFile(file, bytes);
      try {
        await store.putFile('connectors/big.bin', file, 'application/octet-stream');
        const download = await fetch(await store.signedUrl('connectors/big.bin', 'read', 600));
        expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
        await store.delete('connectors/big.bin');
        expect((await fetch(await store.signedUrl('connectors/big.bin', 'read', 600))).status).toBe(404);
      } finally {
        await rm(file, { force: true });
      }
    });

    it('names the refusal of a wrong secret, and of a bucket that does not exist, as the store gave it', async () => {
      const wrongSecret = storeOf({ credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: 'not-the-secret' } });
      const noBucket = storeOf({ bucket: 'no-such-bucket' });
      try {
        const refusal = await wrongSecret.check().catch((error: unknown) => error);
        expect(refusal).toBeInstanceOf(ObjectStoreFailure);
        expect((refusal as ObjectStoreFailure).kind).toBe('refused');
        expect((refusal as ObjectStoreFailure).summary).toBe('the object store refused (SignatureDoesNotMatch, HTTP 403)');
        const missing = (await noBucket.check().catch((error: unknown) => error)) as ObjectStoreFailure;
        expect(missing.summary).toBe('the object store refused (NoSuchBucket, HTTP 404)');
        expect(missing.message).toContain(`S3 bucket no-such-bucket at ${rgw.endpoint}`);
      } finally {
        await wrongSecret.close();
        await noBucket.close();
      }
    });
  });

  describe('a gateway on the bucket', () => {
    let gw: StoreGateway;
    beforeAll(async () => {
      gw = await startStoreGateway(gatewayEnv());
    });
    afterAll(() => gw?.stop());

    it('is ready, the bucket checked, and its upload links take a file the store then holds', async () => {
      const ready = await gw.http.get('/readyz');
      expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', objectStore: 'ok' } } });
      const response = await gw.http.post('/v2/files/generate-url').send(envelope('api.files.generate-url', { files: ['telemetry.json'] }));
      const [entry] = response.body.result as { filePath: string; preSignedUrl: string }[];
      expect((await fetch(entry!.preSignedUrl, { method: 'PUT', body: '{"a":1}' })).status).toBe(200);
      const read = await gw.http.post('/v2/files/generate-url').send(envelope('api.files.generate-url', { files: [entry!.filePath], access: 'read' }));
      const [download] = read.body.result as { preSignedUrl: string }[];
      expect(await (await fetch(download!.preSignedUrl)).text()).toBe('{"a":1}');
    });

    it('stores a distribution uploaded as multipart form data (REST) in the bucket, byte for byte', async () => {
      const bytes = distributionTarGz({ id: 'rgw-registered' });
      expect((await registerOverRest(gw, bytes, 'rgw-registered.tar.gz')).status).toBe(200);
      const row = await gw.sql<{ source_url: string }>('SELECT source_url FROM connector_registry WHERE id = $1', ['rgw-registered-1.0.0']);
      const store = storeOf();
      const stored = await fetch(await store.signedUrl(row.rows[0]!.source_url, 'read', 60));
      await store.close();
      expect(Buffer.from(await stored.arrayBuffer()).equals(bytes)).toBe(true);
    });
  });

  describe('exports (exhaust) on the bucket', () => {
    let gw: StoreGateway;
    beforeAll(async () => {
      gw = await startStoreGateway(gatewayEnv());
      await seedDataset(gw, 'rgw-exhaust', 'Live');
      await ingestEvents(gw, 'rgw-exhaust', [{ id: 'e1', ts: '2026-03-02T10:00:00Z', userid: 'u1', amount: 1 }], 'rgw-exhaust-1');
    });
    afterAll(() => gw?.stop());

    it("links a day's events written to the bucket, which the link downloads", async () => {
      const response = await gw.http.get('/v2/data/exhaust/rgw-exhaust').query({ from: '2026-03-02', to: '2026-03-02' });
      expect(response.status).toBe(200);
      const [link] = response.body.result.files as string[];
      expect(link!.startsWith(`${rgw.endpoint}/${BUCKET}/exhaust/`)).toBe(true);
      const download = await fetch(link!);
      expect(download.status).toBe(200);
      const rows = gunzipSync(Buffer.from(await download.arrayBuffer()))
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: string });
      expect(rows.map((row) => row.id)).toEqual(['e1']);
    });
  });

  describe('a gateway configured with a bucket that does not exist', () => {
    let gw: StoreGateway;
    const logs = lineCollector();
    beforeAll(async () => {
      gw = await startStoreGateway(gatewayEnv('no-such-bucket'), { logStream: logs.stream });
    });
    afterAll(() => gw?.stop());

    it('warns at start naming the bucket and the refusal, and answers /readyz 503 saying the same', async () => {
      const warning = logs.lines.find((line) => typeof line.msg === 'string' && line.msg.startsWith('object store check failed'));
      expect(warning?.level).toBe(40);
      expect(warning?.msg).toContain(`S3 bucket no-such-bucket at ${rgw.endpoint}: the object store refused (NoSuchBucket, HTTP 404)`);
      const ready = await gw.http.get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database).toBe('ok');
      expect(ready.body.checks.objectStore).toContain('S3 bucket no-such-bucket');
      expect(ready.body.checks.objectStore).toContain('NoSuchBucket');
    });

    it('refuses a registration naming the refusal, and logs the code, the store and the cause', async () => {
      const response = await registerOverRest(gw, distributionTarGz({ id: 'rgw-no-bucket' }), 'a.tar.gz');
      expect(response.status).toBe(500);
      expect(response.body.error).toMatchObject({
        code: 'FAILED_TO_REGISTER_CONNECTOR',
        message: 'Failed to register connector: the distribution could not be stored: the object store refused (NoSuchBucket, HTTP 404)',
      });
      const [line] = failedRequests(logs.lines).filter((entry) => entry.operation === 'api.connector.register');
      expect(line).toMatchObject({ status: 500, code: 'FAILED_TO_REGISTER_CONNECTOR', downstream: `object store: S3 bucket no-such-bucket at ${rgw.endpoint}` });
      expect(line!.cause).toContain('ObjectStoreFailure');
      expect(line!.cause).toContain('NoSuchBucket');
    });
  });

  describe('a gateway with a wrong secret', () => {
    let gw: StoreGateway;
    let restore: () => void;
    beforeAll(async () => {
      restore = setEnv({ AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
      gw = await startStoreGateway(gatewayEnv());
    });
    afterAll(async () => {
      await gw?.stop();
      restore?.();
    });

    it('answers /readyz 503 naming the signature refusal; the links it signs are refused by the store', async () => {
      const ready = await gw.http.get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.objectStore).toContain('SignatureDoesNotMatch');
      const response = await gw.http.post('/v2/files/generate-url').send(envelope('api.files.generate-url', { files: ['x.json'] }));
      const [entry] = response.body.result as { preSignedUrl: string }[];
      expect((await fetch(entry!.preSignedUrl, { method: 'PUT', body: 'x' })).status).toBe(403);
    });
  });

  describe('a gateway with no credentials', () => {
    let gw: StoreGateway;
    let restore: () => void;
    const metadata = new RecordingS3();
    beforeAll(async () => {
      const metadataEndpoint = await metadata.start();
      restore = setEnv({ AWS_ACCESS_KEY_ID: undefined, AWS_SECRET_ACCESS_KEY: undefined, AWS_EC2_METADATA_SERVICE_ENDPOINT: metadataEndpoint });
      gw = await startStoreGateway(gatewayEnv());
    });
    afterAll(async () => {
      await gw?.stop();
      await metadata.stop();
      restore?.();
    });

    it('says no credentials were found, not that the store refused, and never asks the instance-metadata address', async () => {
      const response = await gw.http.post('/v2/files/generate-url').send(envelope('api.files.generate-url', { files: ['x.json'] }));
      expect(response.status).toBe(500);
      expect(response.body.error.code).toBe('FILES_GENERATE_URL_FAILURE');
      expect(response.body.error.message).toBe('Failed to generate pre-signed URLs: no credentials for the object store were found (it was not contacted) (CredentialsProviderError)');
      const ready = await gw.http.get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.objectStore).toContain('no credentials for the object store were found');
      expect(metadata.requests).toEqual([]);
    });

    it('asks the instance-metadata address when S3_INSTANCE_METADATA is on', async () => {
      const asking = await startStoreGateway({ ...gatewayEnv(), S3_INSTANCE_METADATA: 'true' });
      try {
        expect(metadata.requests.length).toBeGreaterThan(0);
        expect(metadata.requests[0]!.url).toMatch(/^\/latest\//);
      } finally {
        await asking.stop();
      }
    });
  });

  // Last: the store does not come back.
  describe('a store that dies in the middle of a request', () => {
    let gw: StoreGateway;
    const logs = lineCollector();
    beforeAll(async () => {
      gw = await startStoreGateway(gatewayEnv(), { logStream: logs.stream });
    });
    afterAll(() => gw?.stop());

    it('answers the registration in flight with the store unreachable, changes nothing, logs why, and is unready', async () => {
      const registry = await registrySnapshot(gw);
      // The store takes the connection and then stops answering; it dies while the upload waits.
      process.kill(rgw.gatewayPid(), 'SIGSTOP');
      const pending = registerOverRest(gw, distributionTarGz({ id: 'rgw-dies' }), 'dies.tar.gz');
      await new Promise((resolve) => setTimeout(resolve, 500));
      await rgw.killGateway();
      const response = await pending;
      expect(response.status).toBe(500);
      expect(response.body.error.code).toBe('FAILED_TO_REGISTER_CONNECTOR');
      expect(response.body.error.message).toMatch(/^Failed to register connector: the distribution could not be stored: the object store could not be reached \((ECONNRESET|ECONNREFUSED|EPIPE)\)$/);
      expect(await registrySnapshot(gw)).toEqual(registry);
      const [line] = failedRequests(logs.lines).filter((entry) => entry.operation === 'api.connector.register');
      expect(line).toMatchObject({ status: 500, code: 'FAILED_TO_REGISTER_CONNECTOR', downstream: `object store: S3 bucket ${BUCKET} at ${rgw.endpoint}` });
      expect(line!.cause).toMatch(/could not be reached/);
      // Readiness answers are kept a few seconds: within those it turns.
      await eventually(async () => (await gw.http.get('/readyz')).status === 503);
      expect((await gw.http.get('/readyz')).body.checks.objectStore).toMatch(/could not be reached \(ECONNREFUSED\)/);
    }, 60_000);
  });
});
