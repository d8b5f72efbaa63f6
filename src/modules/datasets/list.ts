// The dataset list's contract: what a `where`, `orderBy` and `groupBy` may name, and the indexed
// column each reads (migration 20261202000000_list_indexes; tags: 20261207010000_linked_filters). The
// fields read through its links (its alert rules, its ingestion counters) are the other modules' and
// join it where the modules are composed (src/graphql/lists.ts: linkedDatasetList).
import { changeTimeFields, defineList } from '../../platform/lists/declaration.js';
import type { ListLink } from '../../platform/lists/nested-list.js';
import { DATASET_STATUS_VALUES, DATASET_TYPE_VALUES, DATASET_VERSION_VALUES } from './types.js';

export const datasetList = defineList(
  {
    type: 'Dataset',
    plural: 'dataset versions',
    table: 'datasets',
    key: ['dataset_id', 'stage'],
    // Published versions first, then drafts; newest change first within each.
    defaultOrder: [
      { field: 'version', direction: 'desc' },
      { field: 'updatedAt', direction: 'desc' },
    ],
    invalidInputCode: 'DATASET_LIST_INPUT_INVALID',
  },
  {
    datasetId: { column: 'dataset_id', kind: 'key', description: 'The dataset id.', orderable: true },
    name: { column: 'name', kind: 'text', description: 'The dataset name.', orderable: true },
    version: { column: 'stage', kind: 'enum', enumType: 'DatasetVersion', enumValues: DATASET_VERSION_VALUES, description: 'Published (LIVE) or draft version.', groupable: true },
    status: { column: 'status', kind: 'enum', enumType: 'DatasetStatus', enumValues: DATASET_STATUS_VALUES, description: 'The lifecycle status.', groupable: true },
    type: { column: 'type', kind: 'enum', enumType: 'DatasetType', enumValues: DATASET_TYPE_VALUES, description: 'Event or master dataset.', groupable: true },
    alias: { column: 'alias', kind: 'key', nullable: true, description: 'The alias its data can also be queried by.' },
    tags: { column: 'tags', kind: 'set', nullable: true, description: 'The tags of the version (a GIN index serves `eq` and `in`).' },
    ...changeTimeFields('version'),
  },
);

/** A dataset's denorm sources (`Dataset.denormSourcePage`): the Live versions of the ids its denormalisation names. */
export const denormSourceLink: ListLink = { parentKey: 'dataset_id', keyType: 'text', held: true, narrowing: "stage = 'live'" };

/**
 * The datasets a template's query names (`QueryTemplate.datasetPage`): of each id its Live version,
 * else its draft (as a query run reads them).
 */
export const namedDatasetLink: ListLink = {
  parentKey: 'dataset_id',
  keyType: 'text',
  held: true,
  narrowing: `(stage = 'live' OR NOT EXISTS (SELECT 1 FROM datasets AS published WHERE published.dataset_id = "datasets".dataset_id AND published.stage = 'live'))`,
};
