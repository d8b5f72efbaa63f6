// Domain types of datasets.
import type { DatasetRecord, DatasetStatus, Stage } from '../../platform/dataset.js';
import type { ListArguments, ListPage } from '../../platform/lists/list-query.js';

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

export type IgnoredFields = Partial<Record<'transformations' | 'connectors' | 'denorm_fields' | 'dataset_config', IgnoredItem[]>>;

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
