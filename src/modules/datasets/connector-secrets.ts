// Connector configurations of a dataset hold credentials (broker passwords, cloud keys), so create
// and update store them sealed: AES-256-GCM (authenticated: a changed byte fails to open, unlike the
// original's ECB), a fresh IV per value, the dataset id bound in as associated data so a sealed
// value cannot be moved to another dataset. Reads show the sealed text, never the clear one.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const CONNECTOR_KEY_BYTES = 32;

export interface ConnectorSecrets {
  /** The configuration sealed for `datasetId`; a value already sealed is kept as it is. */
  seal(datasetId: string, config: unknown): Promise<unknown>;
  /** The clear configuration of a sealed value (for the connector runtime, never for API reads). */
  open(datasetId: string, sealed: string): Promise<unknown>;
}

function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

export function createConnectorSecrets(key: () => Promise<Buffer>): ConnectorSecrets {
  const usable = async () => {
    const bytes = await key();
    if (bytes.length !== CONNECTOR_KEY_BYTES) throw new Error(`the connector configuration key must be ${CONNECTOR_KEY_BYTES} bytes (got ${bytes.length})`);
    return bytes;
  };
  return {
    async seal(datasetId, config) {
      // Strings are what the original stored (its own encryption) or what an export carried: kept.
      if (typeof config === 'string') return config;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', await usable(), iv);
      cipher.setAAD(Buffer.from(datasetId));
      const body = Buffer.concat([cipher.update(JSON.stringify(config ?? {}), 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    async open(datasetId, sealed) {
      if (!isSealed(sealed)) throw new Error('not a sealed connector configuration');
      const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', await usable(), raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(datasetId));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return JSON.parse(Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8')) as unknown;
    },
  };
}
