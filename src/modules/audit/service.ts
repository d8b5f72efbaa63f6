// The audit trail's rules: what a record holds, how the trail is read. Records are written by the
// trail (trail.ts) around every mutation, so both transports produce them.
import { withLegacyFilter, legacyEq } from '../../platform/lists/legacy-filter.js';
import { cursorOf, planList, type ListArguments, type ListWhere } from '../../platform/lists/list-query.js';
import { GatewayError } from '../../errors.js';
import type { OperationTransactions } from '../../platform/database/operation-transaction.js';
import { auditList } from './list.js';
import type { AuditStore } from './store.js';
import type { AuditFilter, AuditPage, AuditRecord, NewAuditRecord } from './types.js';

const LEGACY_CURSOR_PREFIX = 'audit:';
/** Largest id the bigint column holds; a cursor past it was not made here (and would fail in the database). */
const ID_MAX = 9_223_372_036_854_775_807n;

/** The cursor the trail gave before the list contract (`audit:<id>`, newest first); still accepted as `after`. */
export function auditCursor(id: string): string {
  return Buffer.from(`${LEGACY_CURSOR_PREFIX}${id}`, 'utf8').toString('base64url');
}

/**
 * An older `audit:<id>` cursor as the list contract's cursor of the same record in the trail's own
 * order (newest first), so a client paging across an upgrade keeps its place; any other cursor as given.
 */
function currentCursor(cursor: string | null | undefined, args: ListArguments): string | null | undefined {
  if (cursor === null || cursor === undefined) return cursor;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!decoded.startsWith(LEGACY_CURSOR_PREFIX)) return cursor;
  const id = decoded.slice(LEGACY_CURSOR_PREFIX.length);
  if (!/^[1-9][0-9]{0,18}$/.test(id) || BigInt(id) > ID_MAX) throw new GatewayError('INVALID_INPUT', `after: ${JSON.stringify(cursor.slice(0, 60))} is not a cursor returned by auditRecords`);
  if (args.orderBy && args.orderBy.length > 0) throw new GatewayError('INVALID_INPUT', 'after: an older auditRecords cursor pages the newest-first order only (give no orderBy)');
  return cursorOf(auditList, planList(auditList, { first: 0 }, 0).order, { id });
}

/** The older `filter` argument as a `where` of the list contract. */
function legacyWhere(filter: AuditFilter | null | undefined): ListWhere | undefined {
  if (!filter) return undefined;
  const at = { ...(filter.since ? { gte: filter.since } : {}), ...(filter.until ? { lt: filter.until } : {}) };
  const where: ListWhere = {
    ...legacyEq('actor', filter.actor || undefined),
    ...legacyEq('operation', filter.operation || undefined),
    ...legacyEq('apiId', filter.apiId || undefined),
    ...legacyEq('targetId', filter.targetId || undefined),
    ...legacyEq('outcome', filter.outcome || undefined),
    ...legacyEq('transport', filter.transport || undefined),
    ...(Object.keys(at).length > 0 ? { at } : {}),
  };
  return Object.keys(where).length > 0 ? where : undefined;
}

/** Most records one page of `auditRecords` returns. */
export const AUDIT_LIST_MAX = 1000;

export interface AuditServiceOptions {
  /** Most records one page returns. */
  listMax: number;
  /** Runs a change with its statements in one transaction, ended by its audit record. */
  operations: OperationTransactions;
}

/** What a record says of a call, besides how it ended. */
export type AuditedCall = Omit<NewAuditRecord, 'outcome' | 'errorCode' | 'targetId'>;

/** How a call ended, for its record: what it changed (from its result, when it made it) and its error code. */
export interface AuditedEnd<T> {
  target: (result: T | undefined) => string | null;
  errorCode: (error: unknown) => string;
  /** The record of a failed call could not be written (the call's own error is answered all the same). */
  lost: (error: unknown) => void;
}

export interface AuditListQuery extends ListArguments {
  /** The older `filter` argument; both it and `where` must match. */
  filter?: AuditFilter | null;
}

export function createAuditService(store: AuditStore, options: AuditServiceOptions) {
  const statement = (record: NewAuditRecord) =>
    store.insertStatement({
      ...record,
      // The columns' bounds; ids longer than these are cut, never refused (the change is the caller's).
      requestId: record.requestId.slice(0, 128),
      actor: record.actor.slice(0, 120),
      targetId: record.targetId?.slice(0, 255) ?? null,
    });
  return {
    /**
     * Runs `change` and writes its record in one transaction with it: the change and a success record
     * land together or not at all (a record that cannot be written undoes the change, and the call
     * fails); a failed change is rolled back, then its failure record is written.
     */
    recorded<T>(call: AuditedCall, change: () => Promise<T>, end: AuditedEnd<T>): Promise<T> {
      return options.operations(change, {
        success: (result) => statement({ ...call, targetId: end.target(result), outcome: 'success', errorCode: null }),
        failure: (error) => statement({ ...call, targetId: end.target(undefined), outcome: 'failure', errorCode: end.errorCode(error) }),
        failureLost: end.lost,
      });
    },

    /** One record by id; undefined when there is none. */
    async find(id: string): Promise<AuditRecord | undefined> {
      if (!/^[1-9][0-9]{0,18}$/.test(id) || BigInt(id) > ID_MAX) return undefined;
      return store.findById(BigInt(id));
    },

    list(query: AuditListQuery): Promise<AuditPage> {
      const { filter, ...args } = query;
      return store.page({ ...args, where: withLegacyFilter(args.where, legacyWhere(filter)), after: currentCursor(args.after, args) }, options.listMax);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
