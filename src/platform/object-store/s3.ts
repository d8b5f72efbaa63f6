// S3, or any S3-compatible store (MinIO, R2, Ceph RGW), through the AWS SDK v3 and its presigner.
// Credentials come from the SDK's standard chain (environment, shared profile, web identity,
// container role); the instance-metadata service only when asked for (S3_INSTANCE_METADATA).
import { stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertObjectKey, ObjectStoreFailure, type LinkAccess, type ObjectStore } from './object-store.js';

export interface S3Settings {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint; AWS itself when absent. */
  endpoint?: string;
  /** The endpoint pre-signed links name (the signature covers the host), when clients reach the store elsewhere. */
  publicEndpoint?: string;
  forcePathStyle: boolean;
  /** Fixed credentials (tests); the standard chain otherwise. */
  credentials?: S3ClientConfig['credentials'];
  /**
   * Whether the standard chain may ask the instance-metadata service (169.254.169.254) for
   * credentials. Off, a gateway without credentials says so at once instead of probing that address.
   */
  instanceMetadata?: boolean;
}

/** How long a readiness check of the bucket may take. */
const CHECK_TIMEOUT_MS = 3000;

const ignore = () => undefined;
const SILENT_SDK_LOGGER = { trace: ignore, debug: ignore, info: ignore, warn: ignore, error: ignore };

export function createS3Client(settings: S3Settings): S3Client {
  // The SDK's own switch, read by its credential chain when it reaches the instance-metadata link.
  process.env.AWS_EC2_METADATA_DISABLED = settings.instanceMetadata ? 'false' : 'true';
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

  async signedUrl(key: string, access: LinkAccess, expiresInSeconds: number, signedAt?: number): Promise<string> {
    assertObjectKey(key);
    const target = { Bucket: this.settings.bucket, Key: key };
    const command = access === 'write' ? new PutObjectCommand(target) : new GetObjectCommand(target);
    // Signing sends nothing; it fails only when there are no credentials to sign with.
    const signing = { expiresIn: expiresInSeconds, ...(signedAt === undefined ? {} : { signingDate: new Date(signedAt) }) };
    return getSignedUrl(this.presigner, command, signing).catch((error: unknown) => this.fail(error));
  }

  async putFile(key: string, filePath: string, contentType: string): Promise<void> {
    assertObjectKey(key);
    // A file stream with its length: the SDK sends it in one PUT without buffering it in memory.
    const { size } = await stat(filePath);
    await this.client
      .send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: createReadStream(filePath), ContentLength: size, ContentType: contentType }))
      .catch((error: unknown) => this.fail(error));
  }

  async delete(key: string): Promise<void> {
    assertObjectKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key })).catch((error: unknown) => this.fail(error));
  }

  /**
   * Lists at most one key of a prefix nothing uses: the cheapest request that proves the bucket
   * exists and the credentials are right (both needed by every link), in at most a few seconds.
   */
  async check(): Promise<void> {
    await this.client
      .send(new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: 'gateway-readiness-check/', MaxKeys: 1 }), { abortSignal: AbortSignal.timeout(CHECK_TIMEOUT_MS) })
      .catch((error: unknown) => this.fail(error));
  }

  private fail(error: unknown): never {
    throw describeFailure(error, this.name);
  }

  async close(): Promise<void> {
    this.client.destroy();
    if (this.presigner !== this.client) this.presigner.destroy();
  }
}

const NETWORK_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'TimeoutError', 'AbortError', 'RequestTimeout']);

interface SdkError {
  name?: string;
  message?: string;
  code?: string;
  errors?: SdkError[];
  $metadata?: { httpStatusCode?: number };
}

/** Names what went wrong with the store: it refused (and why), could not be reached, or was never asked. */
function describeFailure(error: unknown, store: string): unknown {
  const e = (error ?? {}) as SdkError;
  if (e.name === 'CredentialsProviderError') return new ObjectStoreFailure('no-credentials', store, e.name, e.message ?? '', { cause: error });
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) {
    // The SDK names an error by the store's code (NoSuchBucket, SignatureDoesNotMatch, ...).
    const message = e.message && e.message !== 'UnknownError' ? e.message : '';
    return new ObjectStoreFailure('refused', store, `${e.name ?? 'Error'}, HTTP ${status}`, message, { cause: error });
  }
  // A connection failure: Node names it by its code (an AggregateError of each address tried has
  // an empty message, hence the first inner error); a timeout by the abort's name. The SDK may wrap
  // what it did not recognise as an Error (one from another realm, as under a test runner's VM) in
  // "AWS SDK error wrapper for Error: connect ECONNREFUSED ...", where only the text tells the code.
  const inner = e.errors?.[0];
  const wrapped = e.message?.startsWith('AWS SDK error wrapper for ') ? /\b(E[A-Z]{3,})\b/.exec(e.message)?.[1] : undefined;
  const code = e.code ?? inner?.code ?? wrapped ?? e.name ?? 'Error';
  if (!NETWORK_FAILURES.has(code)) return error;
  return new ObjectStoreFailure('unreachable', store, code, e.message || inner?.message || '', { cause: error });
}
