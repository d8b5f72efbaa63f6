// History of a record: its kept versions, newest first, each as the change it made (changed paths
// with their values before and after), paged with the list contract's keyset cursors.
import DataLoader from 'dataloader';
import { GatewayError } from '../../errors.js';
import { decodeCursorText, keysetCursor } from '../../platform/lists/cursor.js';
import type { ListPage } from '../../platform/lists/list-query.js';
import { changedPaths } from './diff.js';
import type { HistoryStore, VersionRow } from './store.js';
import { HISTORY_PAGE_DEFAULT, HISTORY_PAGE_MAX, type HistoryEntityType, type HistoryEntry } from './types.js';

export interface HistoryArgs {
  first?: number | null;
  after?: string | null;
}

const ORDER = 'newest';
const cursorType = (type: HistoryEntityType) => `${type}History`;

function positionOf(type: HistoryEntityType, cursor: string): bigint {
  const decoded = decodeCursorText(cursor);
  const values = decoded !== 'malformed' && 'values' in decoded && decoded.type === cursorType(type) && decoded.order === ORDER ? decoded.values : undefined;
  const id = Array.isArray(values) && values.length === 1 && typeof values[0] === 'string' && /^[1-9][0-9]{0,18}$/.test(values[0]) ? values[0] : undefined;
  if (!id)
    throw new GatewayError('HISTORY_INVALID_INPUT', `after: ${JSON.stringify(cursor.slice(0, 60))} is not a cursor of this ${type}'s history; pass an endCursor its history gave, or omit after`);
  return BigInt(id);
}

function entryOf(row: VersionRow): HistoryEntry {
  const versionKey = typeof row.snapshot.versionKey === 'string' ? row.snapshot.versionKey : row.id.toString();
  return {
    id: row.id,
    versionKey,
    operation: row.operation,
    stage: row.stage,
    actor: row.actor,
    at: row.at,
    changes: changedPaths(row.previous, row.operation === 'DELETED' ? null : row.snapshot),
  };
}

interface Batch {
  pages: DataLoader<string, VersionRow[]>;
  counts: DataLoader<string, number>;
}

export function createHistoryService(store: HistoryStore) {
  // The records of one request (`request`: an object that lives as long as it, its loaders) asking the
  // same page of the same type's history share one statement, and their counts one more.
  const batches = new WeakMap<object, Map<string, Batch>>();
  function batchFor(request: object, type: HistoryEntityType, before: bigint | null, limit: number): Batch {
    const signature = JSON.stringify([type, before?.toString() ?? null, limit]);
    const ofRequest = batches.get(request) ?? batches.set(request, new Map()).get(request)!;
    const found = ofRequest.get(signature);
    if (found) return found;
    const batch: Batch = {
      pages: new DataLoader(async (ids) => {
        const pages = await store.versions(type, ids, before, limit);
        return ids.map((id) => pages.get(id) ?? []);
      }),
      counts: new DataLoader(async (ids) => {
        const counts = await store.counts(type, ids);
        return ids.map((id) => counts.get(id) ?? 0);
      }),
    };
    ofRequest.set(signature, batch);
    return batch;
  }

  return {
    async history(request: object, type: HistoryEntityType, id: string, { first, after }: HistoryArgs): Promise<ListPage<HistoryEntry>> {
      const size = first ?? HISTORY_PAGE_DEFAULT;
      if (!Number.isInteger(size) || size < 0 || size > HISTORY_PAGE_MAX) {
        throw new GatewayError('HISTORY_INVALID_INPUT', `first must be an integer from 0 to ${HISTORY_PAGE_MAX}; ${size} was given`);
      }
      const before = after === null || after === undefined ? null : positionOf(type, after);
      const batch = batchFor(request, type, before, size + 1);
      const rows = size === 0 ? [] : await batch.pages.load(id);
      const items = rows.slice(0, size).map(entryOf);
      return {
        items,
        cursors: items.map((item) => keysetCursor(cursorType(type), ORDER, [item.id.toString()])),
        hasNextPage: rows.length > size,
        hasPreviousPage: before !== null,
        countAll: () => batch.counts.load(id),
        // HistoryConnection offers neither (a record's history is at most VERSION_RETENTION entries).
        groupBy: () => Promise.reject(new GatewayError('HISTORY_INVALID_INPUT', 'history has no groupBy')),
        aggregate: () => Promise.reject(new GatewayError('HISTORY_INVALID_INPUT', 'history has no aggregate')),
      };
    },

    /** Writes VERSION_RETENTION where the triggers read it. */
    setRetention: (retention: number) => store.setRetention(retention),
  };
}

export type HistoryService = ReturnType<typeof createHistoryService>;

/** A page of a record's history, as the connection's resolvers take it. */
export type HistoryPage = ListPage<HistoryEntry>;
