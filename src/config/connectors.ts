// Connectors: how their ui_spec reads, and the bounds of a registered distribution and its archive.
import { z } from 'zod';
import type { ServerVariables } from './server.js';
import { byteSize } from './values.js';

export const connectorVariables = z.object({
  CONNECTOR_UI_SPEC_FORMAT: z
    .enum(['contract', 'console'])
    .default('contract')
    .describe(
      "Layout of a connector's ui_spec in reads: contract (schema + UI hints, contract 2.4) or console (one JSON Schema form of the connector configuration, as the original web console renders it).",
    ),
  CONNECTOR_LIST_MAX: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Most connectors one list call returns.'),
  CONNECTOR_UPLOAD_LIMIT: byteSize.default(100 * 1024 * 1024).describe('Largest connector distribution accepted for registration.'),
  CONNECTOR_ARCHIVE_MAX_ENTRIES: z.coerce.number().int().min(1).max(100_000).default(2000).describe('Most entries a connector archive may hold.'),
  CONNECTOR_ARCHIVE_MAX_ENTRY_SIZE: byteSize.default(100 * 1024 * 1024).describe('Largest uncompressed size of one entry of a connector archive.'),
  CONNECTOR_ARCHIVE_MAX_TOTAL_SIZE: byteSize.default(500 * 1024 * 1024).describe('Largest uncompressed size of a whole connector archive.'),
});

export type ConnectorVariables = z.infer<typeof connectorVariables>;

export function connectorSettings(e: ConnectorVariables & Pick<ServerVariables, 'DATA_DIR'>) {
  return {
    listMax: e.CONNECTOR_LIST_MAX,
    uiSpecFormat: e.CONNECTOR_UI_SPEC_FORMAT,
    uploadLimitBytes: e.CONNECTOR_UPLOAD_LIMIT,
    workDir: `${e.DATA_DIR}/tmp`,
    archive: {
      maxEntries: e.CONNECTOR_ARCHIVE_MAX_ENTRIES,
      maxEntryBytes: e.CONNECTOR_ARCHIVE_MAX_ENTRY_SIZE,
      maxTotalBytes: e.CONNECTOR_ARCHIVE_MAX_TOTAL_SIZE,
    },
  };
}
