// What a dataset list may filter and order by among the dataset's ingestion counters (`Dataset.ingestion`):
// each is read per dataset from this module's counters table by its primary key, so no index finds
// the datasets: every comparison, and an order by one of them, reads every dataset (priced as a scan,
// src/platform/lists/comparisons.ts). 0 for a dataset that has ingested nothing yet.
import type { ListField } from '../../platform/lists/declaration.js';
import { ingestionFieldPermissions } from './permissions.js';

/** A counter of the row of `datasets` the list is reading, as an Int (GraphQL's; the counters are bigint). */
const counter = (column: string) => `COALESCE((SELECT LEAST(${column}, 2147483647)::int FROM ingestion_counters WHERE ingestion_counters.dataset_id = "datasets"."dataset_id"), 0)`;

/** The counters' own readers may filter and order by them; they move with every ingest call (figures). */
const reads = { apiIds: ingestionFieldPermissions['Query.ingestionStats']!, figures: true };

const counterField = (column: string, description: string): ListField => ({ column: counter(column), kind: 'int', scan: true, orderable: true, reads, description });

export const datasetIngestionFields: Readonly<Record<string, ListField>> = {
  ingestionReceived: counterField('received', 'Events received by ingestion (`ingestion.received`).'),
  ingestionProcessed: counterField('processed', 'Events stored after processing (`ingestion.processed`).'),
  ingestionFailed: counterField('failed', 'Events kept as failed (`ingestion.failed`).'),
};
