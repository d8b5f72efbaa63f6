// The analytics store a Live dataset is queried in. Implementations: Druid (at scale) and the
// embedded PostgreSQL engine; both arrive with the ingestion and template-query issues. Until
// then the gateway runs with the named no-op below, which records nothing and queries nothing.
import type { DatasetRecord } from '../../modules/datasets/types.js';

export interface QueryEngine {
  /** A short name for logs and /readyz. */
  readonly name: string;
  /** Makes (or updates) the datasource of a dataset that went Live. */
  ensureQueryable(dataset: DatasetRecord): Promise<void>;
  /** Removes the datasource of a dataset that was retired or deleted. */
  dropQueryable(datasetId: string): Promise<void>;
}

export class NoopQueryEngine implements QueryEngine {
  readonly name = 'none (no query engine configured yet: datasets go Live without a datasource)';
  async ensureQueryable(): Promise<void> {}
  async dropQueryable(): Promise<void> {}
}
