// Datasets: how many one list returns, and the key sealing their connector configurations at rest.
import { z } from 'zod';
import { SECRET } from './values.js';
import type { ServerVariables } from './server.js';

export const datasetVariables = z.object({
  CONNECTOR_CONFIG_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters (a 256-bit key)')
    .optional()
    .describe(
      'Key (64 hex characters) sealing the connector configurations of datasets at rest (AES-256-GCM). When unset, one is generated once and kept in DATA_DIR/connector-config.secret; gateways sharing a database must share it.',
    )
    .meta(SECRET),
  DATASET_LIST_MAX: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Most datasets one list call returns.'),
});

export type DatasetVariables = z.infer<typeof datasetVariables>;

export function datasetSettings(e: DatasetVariables & Pick<ServerVariables, 'DATA_DIR'>) {
  return {
    listMax: e.DATASET_LIST_MAX,
    connectorKey: connectorKey(e),
  };
}

/** The key itself, or the file it is generated into once and kept in (annotated: `'key' in` must tell the two apart). */
function connectorKey(e: DatasetVariables & Pick<ServerVariables, 'DATA_DIR'>): { key: string } | { keyFile: string } {
  return e.CONNECTOR_CONFIG_KEY ? { key: e.CONNECTOR_CONFIG_KEY } : { keyFile: `${e.DATA_DIR}/connector-config.secret` };
}
