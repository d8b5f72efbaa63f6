// The offset pages every list shares (templates, datasets, connectors, alert records): the window a
// request asks for, checked against the list's maximum, and the page cut from one row more than
// asked, which tells whether another page follows without counting.
import { GatewayError, type ErrorCode } from '../errors.js';

export interface Page<T> {
  items: T[];
  /** Position of the first item in the whole sorted list. */
  offset: number;
  hasNextPage: boolean;
  /** Counts every match over all pages; only run when a client asks for it. */
  countAll: () => Promise<number>;
}

export interface PageWindow {
  limit: number;
  offset: number;
  /** Rows to read: one more than the page holds. */
  take: number;
}

/** The checked window of a list request; `code` names the list's bad-input error. */
export function pageWindow(query: { limit?: number | null; offset?: number | null }, listMax: number, code: ErrorCode): PageWindow {
  const limit = query.limit ?? listMax;
  if (!Number.isInteger(limit) || limit < 0 || limit > listMax) throw new GatewayError(code, `the page size must be an integer from 0 to ${listMax} (got ${limit})`);
  const offset = query.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new GatewayError(code, `the offset must be a non-negative integer (got ${offset})`);
  return { limit, offset, take: limit + 1 };
}

/** The page of `rows` (read with `window.take`). */
export function pageOf<T>(rows: T[], window: PageWindow, countAll: () => Promise<number>): Page<T> {
  return { items: rows.slice(0, window.limit), offset: window.offset, hasNextPage: rows.length > window.limit, countAll };
}
