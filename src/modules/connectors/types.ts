// Domain types of the connector registry (contract 2.4, 4.4).
import type { Readable } from 'node:stream';
import type { ListArguments, ListPage } from '../../platform/lists/list-query.js';

export const CONNECTOR_STATUSES = ['Draft', 'InValidation', 'Live', 'Retired'] as const;
export type ConnectorStatus = (typeof CONNECTOR_STATUSES)[number];

export const CONNECTOR_CATEGORIES = ['Database', 'File', 'Stream'] as const;
export type ConnectorCategory = (typeof CONNECTOR_CATEGORIES)[number];

export type JsonObject = Record<string, unknown>;

/** One version of a connector, as the registry keeps it. */
export interface ConnectorRecord {
  /** `<connectorId>-<version>` */
  id: string;
  connectorId: string;
  name: string;
  type: string;
  category: ConnectorCategory;
  version: string;
  description: string | null;
  technology: string;
  runtime: string;
  licence: string | null;
  owner: string | null;
  iconUrl: string | null;
  status: ConnectorStatus;
  /** The form description from the distribution's ui-config.json (contract 2.4), kept as written. */
  uiSpec: JsonObject;
  /** Object-store key of the distribution it was registered from; null for built-in connectors. */
  sourceUrl: string | null;
  /** How to run it: `{source, main_class, main_program}`. */
  source: JsonObject | null;
  createdBy: string;
  updatedBy: string;
  createdDate: Date;
  updatedDate: Date;
  liveDate: Date | null;
}

/** What registration and seeding write; dates are the store's business. */
export type ConnectorValues = Omit<ConnectorRecord, 'createdDate' | 'updatedDate' | 'liveDate' | 'createdBy'>;

/** A connector list request: the list contract's arguments, and the older filter's sets (refused when empty, as the original does). */
export interface ConnectorListQuery extends ListArguments {
  statuses?: readonly ConnectorStatus[] | null;
  categories?: readonly ConnectorCategory[] | null;
}

export type ConnectorPage = ListPage<ConnectorRecord>;

/** An uploaded file as both transports hand it over (graphql-upload-minimal's FileUpload fits). */
export interface UploadedFile {
  filename: string;
  mimetype: string;
  createReadStream(): Readable;
}

/** GraphQL's ConnectorStatus values and what this domain calls each (resolvers, codegen and REST all read this). */
export const CONNECTOR_STATUS_VALUES = { DRAFT: 'Draft', IN_VALIDATION: 'InValidation', LIVE: 'Live', RETIRED: 'Retired' } as const;

/** GraphQL's ConnectorCategory values and what this domain calls each (resolvers, codegen and REST all read this). */
export const CONNECTOR_CATEGORY_VALUES = { DATABASE: 'Database', FILE: 'File', STREAM: 'Stream' } as const;
