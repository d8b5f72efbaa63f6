// S3, or any S3-compatible store (MinIO, R2, s3rver), through the AWS SDK v3 and its presigner.
// Credentials come from the SDK's standard chain (environment, shared profile, instance role).
import { stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertObjectKey, type LinkAccess, type ObjectStore } from './object-store.js';

export interface S3Settings {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint; AWS itself when absent. */
  endpoint?: string;
  /** The endpoint pre-signed links name (the signature covers the host), when clients reach the store elsewhere. */
  publicEndpoint?: string;
  forcePathStyle: boolean;
  /** Fixed credentials (tests, s3rver); the standard chain otherwise. */
  credentials?: S3ClientConfig['credentials'];
}

const ignore = () => undefined;
const SILENT_SDK_LOGGER = { trace: ignore, debug: ignore, info: ignore, warn: ignore, error: ignore };

export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    // By default the SDK adds a CRC32 of the (empty) body to presigned PUT links; real S3, MinIO and
    // R2 then refuse any non-empty upload through them. Checksums only where an operation requires one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    // The SDK would also print a warning to the console for a failed streaming upload; the failure
    // reaches the caller as the rejection of putFile, which logs or reports it.
    logger: SILENT_SDK_LOGGER,
  });
}

export class S3ObjectStore implements ObjectStore {
  readonly name: string;
  /** Signs links for the address clients use; it sends nothing itself. */
  private readonly presigner: S3Client;

  constructor(
    private readonly settings: S3Settings,
    private readonly client: S3Client = createS3Client(settings),
  ) {
    this.presigner = settings.publicEndpoint ? createS3Client({ ...settings, endpoint: settings.publicEndpoint }) : client;
    this.name = `S3 bucket ${settings.bucket}${settings.endpoint ? ` at ${settings.endpoint}` : ` (${settings.region})`}${settings.publicEndpoint ? `, links via ${settings.publicEndpoint}` : ''}`;
  }

  async signedUrl(key: string, access: LinkAccess, expiresInSeconds: number): Promise<string> {
    assertObjectKey(key);
    const target = { Bucket: this.settings.bucket, Key: key };
    const command = access === 'write' ? new PutObjectCommand(target) : new GetObjectCommand(target);
    return getSignedUrl(this.presigner, command, { expiresIn: expiresInSeconds });
  }

  async putFile(key: string, filePath: string, contentType: string): Promise<void> {
    assertObjectKey(key);
    // A file stream with its length: the SDK sends it in one PUT without buffering it in memory.
    const { size } = await stat(filePath);
    await this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: createReadStream(filePath), ContentLength: size, ContentType: contentType }));
  }

  async delete(key: string): Promise<void> {
    assertObjectKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }));
  }

  async close(): Promise<void> {
    this.client.destroy();
    if (this.presigner !== this.client) this.presigner.destroy();
  }
}
