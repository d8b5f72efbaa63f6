// The dataset lifecycle of contract section 3: which transition applies to which version, from
// which status, and the completeness a draft needs before it may be published.
import { field, type ErrorCode, type MessagePart } from '../../errors.js';
import { isObject } from '../../validation/json-object.js';
import { type DatasetRecord, type DatasetStatus, type Stage, type Transition } from './types.js';

/** The version a transition acts on and the status it must be in. */
export const TRANSITION_RULES: Record<Exclude<Transition, 'Delete'>, { stage: Stage; from: DatasetStatus; to: DatasetStatus; failure: ErrorCode }> = {
  ReadyToPublish: { stage: 'draft', from: 'Draft', to: 'ReadyToPublish', failure: 'DATASET_READYTOPUBLISH_FAILURE' },
  Live: { stage: 'draft', from: 'ReadyToPublish', to: 'Live', failure: 'DATASET_LIVE_FAILURE' },
  Retired: { stage: 'live', from: 'Live', to: 'Retired', failure: 'DATASET_RETIRE_FAILURE' },
};

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** Everything a draft lacks before it can be published, each naming the sections it is about; empty when it is complete. */
export function publishProblems(draft: DatasetRecord): MessagePart[][] {
  const problems: MessagePart[][] = [];
  const properties = isObject(draft.dataSchema.properties) ? Object.keys(draft.dataSchema.properties) : [];
  if (properties.length === 0) problems.push([field('dataSchema'), ' has no properties']);

  const config = draft.datasetConfig;
  if (!isObject(config.keys_config) || !isObject(config.indexing_config)) {
    problems.push([field('datasetConfig'), ' is in the v1 (flat) form: read it with mode=edit to convert it to v2']);
  } else {
    // An empty timestamp_key is allowed (contract 2.1): the event time is then the arrival time.
    if (draft.type === 'master' && !text(config.keys_config.data_key)) problems.push([field('datasetConfig'), '.keys_config.data_key is empty (a master dataset needs its record key)']);
  }

  const extraction = draft.extractionConfig;
  if (isObject(extraction) && extraction.is_batch_event === true && !text(extraction.extraction_key)) {
    problems.push([field('extractionConfig'), '.extraction_key is empty while is_batch_event is true']);
  }
  for (const [path, dedup] of [
    [[field('dedupConfig')], draft.dedupConfig],
    [[field('extractionConfig'), '.dedup_config'], isObject(extraction) ? extraction.dedup_config : undefined],
  ] as const) {
    if (isObject(dedup) && dedup.drop_duplicates === true && !text(dedup.dedup_key)) problems.push([...path, '.dedup_key is empty while drop_duplicates is true']);
  }
  const validation = draft.validationConfig;
  if (isObject(validation) && validation.validate === true && !text(validation.mode)) problems.push([field('validationConfig'), '.mode is empty while validate is true']);
  if (!text(draft.routerConfig?.topic)) problems.push([field('routerConfig'), '.topic is empty']);
  if (draft.denormSources.includes(draft.datasetId)) problems.push([field('denormConfig'), ' refers to the dataset itself']);
  return problems;
}
