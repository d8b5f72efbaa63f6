// The audit trail's rules: what a record holds, how the trail is read. Records are written by the
// trail (trail.ts) around every mutation, so both transports produce them.
import { GatewayError } from '../../errors.js';
import type { AuditStore } from './store.js';
import type { AuditFilter, AuditPage, AuditRecord, NewAuditRecord } from './types.js';

const CURSOR_PREFIX = 'audit:';
/** Largest id the bigint column holds; a cursor past it was not made here (and would fail in the database). */
const ID_MAX = 9_223_372_036_854_775_807n;

export function auditCursor(id: string): string {
  return Buffer.from(`${CURSOR_PREFIX}${id}`, 'utf8').toString('base64url');
}

function idAfter(cursor: string | null | undefined): bigint | undefined {
  if (cursor === null || cursor === undefined) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = decoded.startsWith(CURSOR_PREFIX) ? decoded.slice(CURSOR_PREFIX.length) : '';
  const value = /^[1-9][0-9]{0,18}$/.test(id) ? BigInt(id) : undefined;
  if (value === undefined || value > ID_MAX) {
    throw new GatewayError('INVALID_INPUT', `after: ${JSON.stringify(cursor.slice(0, 60))} is not a cursor returned by auditRecords`);
  }
  return value;
}

/** Most records one page of `auditRecords` returns. */
export const AUDIT_LIST_MAX = 1000;

export interface AuditServiceOptions {
  /** Most records one page returns. */
  listMax: number;
}

export function createAuditService(store: AuditStore, options: AuditServiceOptions) {
  return {
    async record(record: NewAuditRecord): Promise<void> {
      await store.insert({
        ...record,
        // The columns' bounds; ids longer than these are cut, never refused (the change already happened).
        requestId: record.requestId.slice(0, 128),
        actor: record.actor.slice(0, 120),
        targetId: record.targetId?.slice(0, 255) ?? null,
      });
    },

    /** One record by id; undefined when there is none. */
    async find(id: string): Promise<AuditRecord | undefined> {
      if (!/^[1-9][0-9]{0,18}$/.test(id) || BigInt(id) > ID_MAX) return undefined;
      const [record] = await store.list({}, 1, BigInt(id) + 1n);
      return record?.id === id ? record : undefined;
    },

    async list(filter: AuditFilter, first: number | null | undefined, after: string | null | undefined): Promise<AuditPage> {
      const limit = first ?? 100;
      if (!Number.isInteger(limit) || limit < 0 || limit > options.listMax) {
        throw new GatewayError('INVALID_INPUT', `first must be an integer from 0 to ${options.listMax} (got ${limit})`);
      }
      const beforeId = idAfter(after);
      // One row more than asked tells whether another page follows, without counting.
      const rows = await store.list(filter, limit + 1, beforeId);
      return { items: rows.slice(0, limit), hasNextPage: rows.length > limit, hasPreviousPage: beforeId !== undefined, countAll: () => store.count(filter) };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
