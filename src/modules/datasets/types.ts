// Domain types of datasets.
import type { DatasetRecord, DatasetStatus, DatasetType, Stage } from '../../platform/dataset.js';
import type { ListArguments, ListPage } from '../../platform/lists/list-query.js';
import type { DOCUMENT_NAMES } from '../../platform/dataset-document.js';

export type { DatasetRecord, DatasetStatus, DatasetType, JsonObject, Stage } from '../../platform/dataset.js';

export function stageOf(status: DatasetStatus): Stage {
  return status === 'Live' || status === 'Retired' ? 'live' : 'draft';
}

/** The writable part of a record (dates are the store's business, the alias setAlias's). */
export type DatasetDraftValues = Omit<DatasetRecord, 'createdDate' | 'updatedDate' | 'publishedDate' | 'alias'>;

/** Items of a definition that import dropped, with the reason, listed back to the caller. */
export interface IgnoredItem {
  config: unknown;
  details: string;
}

/** What import dropped, by the part of the definition document it was given in (the report speaks the document's names). */
export type IgnoredFields = Partial<Record<'transformations' | 'connectors' | 'denorm_fields' | (typeof DOCUMENT_NAMES)['datasetConfig'], IgnoredItem[]>>;

/** One change of a list section: the item, and whether it is added/replaced or removed. */
export interface ItemChangeInput {
  action: 'upsert' | 'remove';
  value: unknown;
}

/** The sections create and update both take, as they are given; an absent or null one is not part of the request. */
interface DatasetSectionsInput {
  datasetId: string;
  type?: DatasetType | null;
  dataSchema?: unknown;
  datasetConfig?: unknown;
  extractionConfig?: unknown;
  validationConfig?: unknown;
  dedupConfig?: unknown;
  sampleData?: unknown;
  denormConfig?: unknown;
}

/** What create takes: a partial definition (defaults fill the rest). */
export interface DatasetDraftInput extends DatasetSectionsInput {
  name: string;
  transformationsConfig?: readonly unknown[] | null;
  connectorsConfig?: readonly unknown[] | null;
  tags?: readonly string[] | null;
}

/**
 * What update takes: the draft it read (versionKey) and the sections it changes; sections replace
 * (datasetConfig merges), list sections are change lists (denormConfig's denorm_fields too).
 */
export interface DatasetUpdateInput extends DatasetSectionsInput {
  versionKey: string;
  name?: string | null;
  transformationsConfig?: readonly ItemChangeInput[] | null;
  connectorsConfig?: readonly ItemChangeInput[] | null;
  tags?: readonly ItemChangeInput[] | null;
}

/** A dataset list request: the list contract's arguments (src/platform/lists). */
export type DatasetListQuery = ListArguments;

export type DatasetPage = ListPage<DatasetRecord>;

export const TRANSITIONS = ['ReadyToPublish', 'Live', 'Retired', 'Delete'] as const;
export type Transition = (typeof TRANSITIONS)[number];

/** GraphQL's DatasetType values and what this domain calls each (resolvers, codegen and REST all read this). */
export const DATASET_TYPE_VALUES = { EVENT: 'event', MASTER: 'master' } as const;

/** GraphQL's ChangeAction values and what this domain calls each (resolvers, codegen and REST all read this). */
export const CHANGE_ACTION_VALUES = { UPSERT: 'upsert', REMOVE: 'remove' } as const;

/** GraphQL's ResetCategory values and what this domain calls each (resolvers, codegen and REST all read this). */
export const RESET_CATEGORY_VALUES = { PROCESSING: 'processing', QUERY: 'query' } as const;

/** GraphQL's DatasetStatus values and what this domain calls each (resolvers, codegen and REST all read this). */
export const DATASET_STATUS_VALUES = { DRAFT: 'Draft', READY_TO_PUBLISH: 'ReadyToPublish', LIVE: 'Live', RETIRED: 'Retired' } as const;

/** GraphQL's DatasetVersion values and what this domain calls each (resolvers, codegen and REST all read this). */
export const DATASET_VERSION_VALUES = { LIVE: 'live', DRAFT: 'draft' } as const;

/** GraphQL's DatasetTransition values and what this domain calls each (resolvers, codegen and REST all read this). */
export const DATASET_TRANSITION_VALUES = { READY_TO_PUBLISH: 'ReadyToPublish', LIVE: 'Live', RETIRED: 'Retired', DELETE: 'Delete' } as const;

/** A dataset version's stage, status, version and last change, without its configuration. */
export type DatasetVersionStamp = Pick<DatasetRecord, 'datasetId' | 'stage' | 'status' | 'version' | 'updatedDate'>;
