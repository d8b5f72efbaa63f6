// History: each kept version of a dataset, template, alert rule or channel, as the change it made.

export type HistoryEntityType = 'Dataset' | 'QueryTemplate' | 'AlertRule' | 'NotificationChannel';

export type HistoryOperation = 'CREATED' | 'UPDATED' | 'STATUS_CHANGED' | 'PUBLISHED' | 'DELETED';

/** One value that a change made: where (a dotted path: the field, then the keys inside it), and what it was and became. */
export interface ChangedPath {
  path: string;
  /** Undefined: the path did not exist before (null is a value). */
  before?: unknown;
  after?: unknown;
}

export interface HistoryEntry {
  id: bigint;
  versionKey: string;
  operation: HistoryOperation;
  /** The dataset row's stage ('live' or 'draft'); null for other records. */
  stage: string | null;
  actor: string | null;
  at: Date;
  changes: ChangedPath[];
}

/** Most entries one page of `history` holds, and what it holds when `first` is omitted. */
export const HISTORY_PAGE_MAX = 100;
export const HISTORY_PAGE_DEFAULT = 20;
