// A dataset as the outside systems see it (event bus, query engine): one stored version, its
// definition parts kept as the JSON they were written as. The datasets module owns the rules about
// it; this is the shape the ports and the module share.

export const DATASET_TYPES = ['event', 'master'] as const;
export type DatasetType = (typeof DATASET_TYPES)[number];

export const DATASET_STATUSES = ['Draft', 'ReadyToPublish', 'Live', 'Retired'] as const;
export type DatasetStatus = (typeof DATASET_STATUSES)[number];

/** Where a version lives: the Live one (Live, Retired) or the Draft being edited (Draft, ReadyToPublish). */
export type Stage = 'live' | 'draft';

export type JsonObject = Record<string, unknown>;

/** One stored version of a dataset; definition parts are kept as the JSON they were written as. */
export interface DatasetRecord {
  datasetId: string;
  stage: Stage;
  name: string;
  type: DatasetType;
  status: DatasetStatus;
  tags: string[];
  version: number;
  versionKey: string;
  apiVersion: string | null;
  dataSchema: JsonObject;
  extractionConfig: JsonObject | null;
  validationConfig: JsonObject | null;
  dedupConfig: JsonObject | null;
  denormConfig: JsonObject | null;
  routerConfig: JsonObject | null;
  datasetConfig: JsonObject;
  transformationsConfig: unknown[];
  connectorsConfig: unknown[];
  sampleData: JsonObject | null;
  entryTopic: string | null;
  denormSources: string[];
  createdBy: string;
  updatedBy: string;
  createdDate: Date;
  updatedDate: Date;
  publishedDate: Date | null;
  /** Another name of a Live dataset (live versions only; set by setAlias, never by a version write). */
  alias: string | null;
}
