// A list under each item of another list (`Dataset.alertRulePage`, `Dataset.templatePage`,
// `AlertRule.notificationPage`, and the items a parent holds the keys of: `AlertRule.channelPage`), by the same contract as a root list, batched: however many parents
// a response holds, their pages are one statement, their `totalCount`s one more, and each `groupBy`
// field one more. Each statement reads the parents' keys as one array parameter and runs the root
// list's own statement once per parent (a LATERAL join), narrowed by the link, so every parent's page
// is cut and ordered by the database as a root page is. Their `aggregate`s are one more statement.
import DataLoader from 'dataloader';
import { PRISMA_RAW_TYPES, runSql } from '../database/sql-statement.js';
import type { ListDeclaration } from './declaration.js';
import { aggregateOf, aggregateSql, groupRequestOf, groupsReader, type ListAggregate, type ListGroup } from './aggregate.js';
import { cursorOf, fieldNamesOf, ownColumn, planList, type BoundSql, type ListArguments, type ListPage, type ListSource } from './list-query.js';

export interface ListLink {
  /**
   * SQL over the list's table (trusted text, with an index of its own) giving the key of the parent an
   * item belongs to; with `several`, the array of the keys of every parent it belongs to (a GIN index).
   */
  parentKey: string;
  /** The SQL type of that key, for the array of parents' keys. */
  keyType: 'text' | 'uuid';
  /** An item may belong to several parents (a template naming several datasets): `parentKey` is an array. */
  several?: boolean;
  /**
   * The parent holds its items' keys (a rule's channel ids, a dataset's denorm sources): `parentKey` is
   * the items' own key column, and a parent is asked for by the keys it holds (heldKeys).
   */
  held?: boolean;
  /** A further condition every item meets (trusted SQL over the list's table), e.g. only Live versions. */
  narrowing?: string;
}

const PARENT = '__parent';

/**
 * How a parent that holds its items' keys is asked for (ListLink.held): the keys as one JSON array, so
 * parents holding the same keys share one reading. Keys that cannot be the column's type are dropped.
 */
export function heldKeys(link: ListLink, keys: readonly string[]): string {
  const valid = link.keyType === 'uuid' ? keys.filter((key) => UUID.test(key)) : keys;
  return JSON.stringify([...new Set(valid)].sort());
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `statement` once per parent key: each row carries its parent's key as `__parent`. */
export function perParent(link: ListLink, statement: BoundSql, parents: readonly string[], alias: string): BoundSql {
  return {
    text: `SELECT parent."${PARENT}", ${alias}.* FROM unnest($${statement.values.length + 1}::${link.held ? 'text' : link.keyType}[]) AS parent("${PARENT}") CROSS JOIN LATERAL (${statement.text}) AS ${alias}`,
    values: [...statement.values, parents],
  };
}

function byParent<R extends Record<string, unknown>>(rows: readonly R[]): Map<string, R[]> {
  const grouped = new Map<string, R[]>();
  for (const row of rows) {
    const key = String(row[PARENT]);
    const list = grouped.get(key) ?? grouped.set(key, []).get(key)!;
    list.push(row);
  }
  return grouped;
}

/** The condition that narrows a list's statement to one parent's items (see perParent); `@>` is what a GIN index on an array answers. */
export function linkScope(link: ListLink): string {
  const scope = link.held
    ? // The parent's keys, read from its JSON array: `= ANY` of an array is what the key's index answers.
      `${link.parentKey} = ANY(ARRAY(SELECT jsonb_array_elements_text(parent."${PARENT}"::jsonb))::${link.keyType}[])`
    : link.several
      ? `${link.parentKey} @> ARRAY[parent."${PARENT}"]`
      : `${link.parentKey} = parent."${PARENT}"`;
  return link.narrowing ? `${scope} AND ${link.narrowing}` : scope;
}

/**
 * The statements of one parent's page (bound to every parent by perParent). A GIN index finds a
 * parent's items but in no order, so those are read first and then ordered (else the planner may walk
 * the table's ordered index, testing the link on every row until the page fills).
 */
export const planNested = (declaration: ListDeclaration, link: ListLink, args: ListArguments, listMax: number) =>
  planList(declaration, args, listMax, linkScope(link), link.several === true || link.held === true);

interface Batch<T> {
  pages: DataLoader<string, ListPage<T>>;
  counts: DataLoader<string, number>;
  groups: Map<string, DataLoader<string, ListGroup[]>>;
  aggregates: DataLoader<string, ListAggregate>;
}

/**
 * A reader of nested pages. `request` is an object that lives as long as one request (its loaders):
 * parents asking for the same arguments within it share one batch.
 */
export function nestedListReader<T>({ prisma, storePool }: ListSource, declaration: ListDeclaration, link: ListLink, toItem: (row: never) => T) {
  const batches = new WeakMap<object, Map<string, Batch<T>>>();

  function batchFor(request: object, args: ListArguments, listMax: number): Batch<T> {
    const signature = JSON.stringify([args.where ?? null, args.orderBy ?? null, args.first, args.after ?? null, args.last ?? null, args.before ?? null, listMax]);
    const ofRequest = batches.get(request) ?? batches.set(request, new Map()).get(request)!;
    const existing = ofRequest.get(signature);
    if (existing) return existing;
    const plan = planNested(declaration, link, args, listMax);
    const names = fieldNamesOf(prisma, declaration);
    const batch: Batch<T> = {
      pages: new DataLoader(async (parents) => {
        const statement = perParent(link, plan.page, parents, 'item');
        // Plain SQL typed as Prisma's raw query typed it, as readList reads a page.
        const grouped = byParent(await runSql<Record<string, unknown>>(storePool, statement.text, statement.values, PRISMA_RAW_TYPES));
        return parents.map((parent): ListPage<T> => {
          // The rows of one parent come in its page's order (the LATERAL subquery's ORDER BY ... LIMIT).
          const rows = grouped.get(parent) ?? [];
          const kept = rows.slice(0, plan.size);
          if (plan.backward) kept.reverse();
          const more = rows.length > plan.size;
          return {
            items: kept.map((row) => {
              const named: Record<string, unknown> = {};
              for (const [column, value] of Object.entries(row)) if (ownColumn(column)) named[names.get(column) ?? column] = value;
              return toItem(named as never);
            }),
            cursors: kept.map((row) => cursorOf(declaration, plan.order, row)),
            hasNextPage: plan.backward ? plan.beyondCursor : more,
            hasPreviousPage: plan.backward ? more : plan.beyondCursor,
            countAll: () => batch.counts.load(parent),
            groupBy: (request) => groupLoader(request).load(parent),
            aggregate: () => batch.aggregates.load(parent),
          };
        });
      }),
      counts: new DataLoader(async (parents) => {
        const statement = perParent(link, plan.count, parents, 'counted');
        const rows = await prisma.$queryRawUnsafe<{ __parent: string; count: number }[]>(statement.text, ...statement.values);
        const counts = new Map(rows.map((row) => [String(row[PARENT]), row.count]));
        return parents.map((parent) => counts.get(parent) ?? 0);
      }),
      groups: new Map(),
      aggregates: new DataLoader(async (parents) => {
        const statement = perParent(link, aggregateSql(declaration, plan.rows), parents, 'aggregated');
        const rows = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(statement.text, ...statement.values);
        const byKey = new Map(rows.map((row) => [String(row[PARENT]), row]));
        return parents.map((parent) => aggregateOf(byKey.get(parent)));
      }),
    };
    const groupLoader = (given: Parameters<ListPage<T>['groupBy']>[0]) => {
      const request = groupRequestOf(given);
      const signature = JSON.stringify([request.field ?? null, request.fields ?? null, request.bucket ?? null]);
      const found = batch.groups.get(signature);
      if (found) return found;
      // Checked before any statement: a field the list cannot be counted by is refused with the list's code.
      const group = plan.group(request);
      const toGroups = groupsReader(declaration, request);
      const loader = new DataLoader<string, ListGroup[]>(async (parents) => {
        const statement = perParent(link, group, parents, 'grouped');
        const grouped = byParent(await prisma.$queryRawUnsafe<Record<string, unknown>[]>(statement.text, ...statement.values));
        return parents.map((parent) => toGroups(grouped.get(parent) ?? []));
      });
      batch.groups.set(signature, loader);
      return loader;
    };
    ofRequest.set(signature, batch);
    return batch;
  }

  /** The page of `parentKey`'s items (held links: heldKeys of the parent); `listMax` bounds `first` and `last` as on the root list. */
  return (request: object, parentKey: string, args: ListArguments, listMax: number): Promise<ListPage<T>> => batchFor(request, args, listMax).pages.load(parentKey);
}
