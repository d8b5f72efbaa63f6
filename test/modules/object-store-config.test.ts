// Configuration of object storage, file links and connector uploads (issue 7): defaults as the
// contract and the original give them, S3 chosen by S3_BUCKET, and every bad value reported at once.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('object storage configuration', () => {
  it('defaults to the embedded store under DATA_DIR, 600-second links, 20 files per call and bounded uploads', () => {
    const config = loadConfig({ DATA_DIR: '/srv/gateway' });
    expect(config.objectStore).toEqual({
      kind: 'embedded',
      dir: '/srv/gateway/objects',
      secretFile: '/srv/gateway/object-store.secret',
      // No browser origin may use the links until an operator names one (OBJECT_STORE_CORS_ORIGINS).
      corsOrigins: [],
      maxObjectBytes: 100 * 1024 * 1024,
    });
    expect(config.files).toEqual({ urlExpirySeconds: 600, urlLimit: 20 });
    expect(config.connectors).toEqual({
      listMax: 1000,
      uploadLimitBytes: 100 * 1024 * 1024,
      workDir: '/srv/gateway/tmp',
      archive: { maxEntries: 2000, maxEntryBytes: 100 * 1024 * 1024, maxTotalBytes: 500 * 1024 * 1024 },
      uiSpecFormat: 'contract',
    });
  });

  it('takes the link lifetime, link count, secret, public URL and upload limits from the environment', () => {
    const config = loadConfig({
      FILES_URL_EXPIRY_SECONDS: '120',
      FILES_URL_LIMIT: '5',
      OBJECT_STORE_SECRET: 'a'.repeat(32),
      PUBLIC_URL: 'https://gateway.example.com/',
      CONNECTOR_UPLOAD_LIMIT: '20mb',
      CONNECTOR_ARCHIVE_MAX_ENTRIES: '50',
      CONNECTOR_ARCHIVE_MAX_ENTRY_SIZE: '512kb',
      CONNECTOR_ARCHIVE_MAX_TOTAL_SIZE: '2mb',
    });
    expect(config.files).toEqual({ urlExpirySeconds: 120, urlLimit: 5 });
    expect(config.objectStore).toMatchObject({ kind: 'embedded', secret: 'a'.repeat(32), publicUrl: 'https://gateway.example.com' });
    expect(config.connectors).toMatchObject({ uploadLimitBytes: 20 * 1024 * 1024, archive: { maxEntries: 50, maxEntryBytes: 512 * 1024, maxTotalBytes: 2 * 1024 * 1024 } });
  });

  it('uses S3 when S3_BUCKET is set: path-style addressing with an endpoint, virtual hosts without', () => {
    expect(loadConfig({ S3_BUCKET: 'uploads', S3_ENDPOINT: 'http://127.0.0.1:4568' }).objectStore).toEqual({
      kind: 's3',
      bucket: 'uploads',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:4568',
      forcePathStyle: true,
      instanceMetadata: false,
    });
    expect(loadConfig({ S3_BUCKET: 'uploads', S3_REGION: 'ap-south-1' }).objectStore).toEqual({ kind: 's3', bucket: 'uploads', region: 'ap-south-1', forcePathStyle: false, instanceMetadata: false });
    expect(loadConfig({ S3_BUCKET: 'uploads', S3_ENDPOINT: 'https://r2.example.com', S3_FORCE_PATH_STYLE: 'false' }).objectStore).toMatchObject({ forcePathStyle: false });
  });

  it('lets the credential chain ask the instance-metadata address only when S3_INSTANCE_METADATA says so', () => {
    expect(loadConfig({ S3_BUCKET: 'uploads', S3_INSTANCE_METADATA: 'true' }).objectStore).toMatchObject({ instanceMetadata: true });
    expect(problemsOf({ S3_BUCKET: 'uploads', S3_INSTANCE_METADATA: 'sometimes' }).join('\n')).toMatch(/S3_INSTANCE_METADATA/);
  });

  it('reports every bad value at once', () => {
    const problems = problemsOf({
      S3_BUCKET: 'Not_A_Bucket',
      S3_ENDPOINT: 'ftp://store',
      FILES_URL_EXPIRY_SECONDS: '0',
      FILES_URL_LIMIT: 'many',
      OBJECT_STORE_SECRET: 'short',
      CONNECTOR_UPLOAD_LIMIT: '10gb',
      CONNECTOR_ARCHIVE_MAX_ENTRIES: '0',
    });
    const names = problems.map((problem) => problem.split(':')[0]).sort();
    expect(names).toEqual(['CONNECTOR_ARCHIVE_MAX_ENTRIES', 'CONNECTOR_UPLOAD_LIMIT', 'FILES_URL_EXPIRY_SECONDS', 'FILES_URL_LIMIT', 'OBJECT_STORE_SECRET', 'S3_BUCKET', 'S3_ENDPOINT']);
  });
});
