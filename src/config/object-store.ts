// The object store (S3 or any S3-compatible store, or a local folder when unset) and the links files get.
import { z } from 'zod';
import type { ServerVariables } from './server.js';
import { booleanText, byteSize, list, SECRET } from './values.js';

export const objectStoreVariables = z.object({
  PUBLIC_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Base URL clients reach the gateway at; embedded object-store links are built on it (default: http://HOST:PORT as listened on).'),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name')
    .optional()
    .describe('Bucket for files and connector distributions. When unset, the embedded object store (DATA_DIR/objects) is used.'),
  S3_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Endpoint of an S3-compatible store (MinIO, R2, Ceph RGW, ...); AWS itself when unset.'),
  S3_PUBLIC_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      'Endpoint that pre-signed links name, when clients reach the store at another address than the gateway does (e.g. http://localhost:9000 for a MinIO the gateway calls http://minio:9000). Default: S3_ENDPOINT.',
    ),
  S3_REGION: z.string().min(1).default('us-east-1').describe('S3 region. Credentials come from the standard AWS chain (environment, profile, instance role).'),
  S3_INSTANCE_METADATA: booleanText
    .default(false)
    .describe(
      "Let the AWS credential chain ask the instance-metadata service (169.254.169.254, an EC2 instance role) for S3 credentials. Off by default: without credentials in the environment, a profile, a web-identity token or a container role, the gateway says so at once (readiness and answers) instead of probing that address. Sets the SDK's AWS_EC2_METADATA_DISABLED for the process.",
    ),
  S3_FORCE_PATH_STYLE: booleanText.optional().describe('Address the bucket in the path, not the host name (default: on when S3_ENDPOINT is set).'),
  OBJECT_STORE_SECRET: z.string().min(32).optional().describe('Key signing embedded object-store links. When unset, one is generated once and kept in DATA_DIR/object-store.secret.').meta(SECRET),
  OBJECT_MAX_SIZE: byteSize.default(100 * 1024 * 1024).describe('Largest object the embedded store accepts through an upload link.'),
  OBJECT_STORE_CORS_ORIGINS: z
    .string()
    .default('')
    .refine((value) => list(value).every((origin) => /^https?:\/\/[^/\s]+$/i.test(origin)), 'must be origins such as https://console.example.com (scheme and host, no path), comma-separated')
    .describe(
      "Origins whose pages may use the embedded object store's links from the browser (preflight and PUT/GET, e.g. the console's direct upload with x-ms-blob-type). Default: none (a link used with a foreign Origin is refused).",
    ),
  FILES_URL_EXPIRY_SECONDS: z.coerce.number().int().min(1).max(604_800).default(600).describe('Lifetime of generated upload and download links.'),
  FILES_URL_LIMIT: z.coerce.number().int().min(1).max(1000).default(20).describe('Most files one generate-url call may name.'),
});

export type ObjectStoreVariables = z.infer<typeof objectStoreVariables>;

export function objectStoreSettings(e: ObjectStoreVariables & Pick<ServerVariables, 'DATA_DIR'>) {
  return e.S3_BUCKET
    ? {
        kind: 's3' as const,
        bucket: e.S3_BUCKET,
        region: e.S3_REGION,
        ...(e.S3_ENDPOINT ? { endpoint: e.S3_ENDPOINT } : {}),
        ...(e.S3_PUBLIC_ENDPOINT ? { publicEndpoint: e.S3_PUBLIC_ENDPOINT } : {}),
        forcePathStyle: e.S3_FORCE_PATH_STYLE ?? e.S3_ENDPOINT !== undefined,
        instanceMetadata: e.S3_INSTANCE_METADATA,
      }
    : {
        kind: 'embedded' as const,
        dir: `${e.DATA_DIR}/objects`,
        secretFile: `${e.DATA_DIR}/object-store.secret`,
        corsOrigins: list(e.OBJECT_STORE_CORS_ORIGINS),
        maxObjectBytes: e.OBJECT_MAX_SIZE,
        ...(e.OBJECT_STORE_SECRET ? { secret: e.OBJECT_STORE_SECRET } : {}),
        ...(e.PUBLIC_URL ? { publicUrl: e.PUBLIC_URL.replace(/\/+$/, '') } : {}),
      };
}

export function fileSettings(e: ObjectStoreVariables) {
  return { urlExpirySeconds: e.FILES_URL_EXPIRY_SECONDS, urlLimit: e.FILES_URL_LIMIT };
}
