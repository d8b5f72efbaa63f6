// The change logs the resumable streams read, each described once for change-log.ts: its table, its
// columns, its cursor's prefix, and the record a row becomes.
import type { AuditRecord, AuditOutcome, AuditTransport } from '../audit/index.js';
import type pg from 'pg';
import { createChangeLogStore, type ChangeLogSpec, type ChangeLogStore } from './change-log.js';

export type ChangeRecordKind = 'CREATED' | 'UPDATED' | 'STATUS_CHANGED' | 'DELETED';

export interface DatasetChangeRecord {
  id: bigint;
  datasetId: string;
  /** The row that changed: 'live' or 'draft'. */
  stage: string;
  kind: ChangeRecordKind;
  statusBefore: string | null;
  statusAfter: string | null;
  version: number | null;
  /** The row's updated_by (created_by for a creation). */
  actor: string | null;
  at: Date;
}

export type AlertStateChangeKind = 'CREATED' | 'STATUS_CHANGED' | 'STATE_CHANGED' | 'DELETED';

export interface AlertStateChangeRecord {
  id: bigint;
  ruleId: string;
  /** The rule's name when the change was made (null when the rule was already gone). */
  ruleName: string | null;
  kind: AlertStateChangeKind;
  /** The rule's lifecycle status before and after (draft, live, retired): set for CREATED, STATUS_CHANGED, DELETED. */
  statusBefore: string | null;
  statusAfter: string | null;
  /** The rule's evaluated state before and after (inactive, pending, firing): set for STATE_CHANGED; null when it was or is no longer evaluated. */
  stateBefore: string | null;
  stateAfter: string | null;
  value: number | null;
  /** Who changed the rule; null for the evaluator's state changes. */
  actor: string | null;
  at: Date;
}

export interface AuditStreamRecord {
  id: bigint;
  /** The audit record as the trail keeps it. */
  record: AuditRecord;
  at: Date;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export const datasetChangeLog: ChangeLogSpec<DatasetChangeRecord> = {
  field: 'datasetChanges',
  table: 'dataset_changes',
  // The datasets' own announcements (the published cache's): every change to a dataset row is one.
  announcedBy: ['datasets'],
  cursorPrefix: 'dc:',
  columns: `"id", "dataset_id", "stage", "kind", "status_before", "status_after", "version", "actor", "at"`,
  toChange: (row) => ({
    id: BigInt(row.id as string),
    datasetId: row.dataset_id as string,
    stage: row.stage as string,
    kind: row.kind as ChangeRecordKind,
    statusBefore: text(row.status_before),
    statusAfter: text(row.status_after),
    version: row.version as number | null,
    actor: text(row.actor),
    at: row.at as Date,
  }),
  currentState: 'the datasets',
};

export const alertStateChangeLog: ChangeLogSpec<AlertStateChangeRecord> = {
  field: 'alertStateChanges',
  table: 'alert_state_changes',
  announcedBy: ['alert_state_changes'],
  cursorPrefix: 'ac:',
  columns: `"id", "rule_id", "rule_name", "kind", "status_before", "status_after", "state_before", "state_after", "value", "actor", "at"`,
  toChange: (row) => ({
    id: BigInt(row.id as string),
    ruleId: row.rule_id as string,
    ruleName: text(row.rule_name),
    kind: row.kind as AlertStateChangeKind,
    statusBefore: text(row.status_before),
    statusAfter: text(row.status_after),
    stateBefore: text(row.state_before),
    stateAfter: text(row.state_after),
    value: row.value as number | null,
    actor: text(row.actor),
    at: row.at as Date,
  }),
  currentState: 'the alert rules',
};

export const auditStreamLog: ChangeLogSpec<AuditStreamRecord> = {
  field: 'auditStream',
  table: 'audit_stream',
  announcedBy: ['audit_stream'],
  cursorPrefix: 'au:',
  columns: `"id", "audit_record_id", "record_at", "request_id", "actor", "transport", "api_id", "operation", "target_id", "outcome", "error_code", "at"`,
  toChange: (row) => ({
    id: BigInt(row.id as string),
    record: {
      id: String(row.audit_record_id),
      at: row.record_at as Date,
      requestId: row.request_id as string,
      actor: row.actor as string,
      transport: row.transport as AuditTransport,
      apiId: text(row.api_id),
      operation: row.operation as string,
      targetId: text(row.target_id),
      outcome: row.outcome as AuditOutcome,
      errorCode: text(row.error_code),
    },
    at: row.at as Date,
  }),
  currentState: 'auditRecords',
};

/** Every change log, by the subscription field that streams it. */
export const CHANGE_LOGS = { datasetChanges: datasetChangeLog, alertStateChanges: alertStateChangeLog, auditStream: auditStreamLog } as const;

export type ChangeStreamField = keyof typeof CHANGE_LOGS;

/** The subscription fields that are resumable streams (their `after` is a cursor; over SSE each event's id is its endCursor). */
export const CHANGE_STREAM_FIELDS: readonly ChangeStreamField[] = Object.keys(CHANGE_LOGS) as ChangeStreamField[];

/** The record a stream's changes are. */
export type ChangeOf<F extends ChangeStreamField> = (typeof CHANGE_LOGS)[F] extends ChangeLogSpec<infer R> ? R : never;

export type ChangeLogStores = { [F in ChangeStreamField]: ChangeLogStore<ChangeOf<F>> };

/** A store for every change log, on this pool. */
export function createChangeLogStores(pool: pg.Pool, retentionHours: number): ChangeLogStores {
  return {
    datasetChanges: createChangeLogStore(pool, datasetChangeLog, retentionHours),
    alertStateChanges: createChangeLogStore(pool, alertStateChangeLog, retentionHours),
    auditStream: createChangeLogStore(pool, auditStreamLog, retentionHours),
  };
}
