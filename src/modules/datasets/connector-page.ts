// `Dataset.connectorPage`: a dataset's connector instances as a connection of the list contract. The
// instances live in the dataset's own JSON (connectors_config), which the record already holds, so a
// page is cut from it without a statement: they are bounded by the definition, never a table's rows.
// The where, order, page size and cursors follow the lists' rules (src/platform/lists/list-query.ts),
// and the cursors are the lists' own codec (keyset cursors naming a row, not a position).
import { GatewayError } from '../../errors.js';
import { decodeCursorText, keysetCursor } from '../../platform/lists/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListArguments, type ListPage, type ListWhere } from '../../platform/lists/list-query.js';
import { connectorInstances, type ConnectorInstance } from './definition.js';
import { datasetList } from './list.js';
import type { DatasetRecord } from './types.js';

/** The cursor's list type: a cursor of another list is refused, as the lists refuse one. */
const CURSOR_TYPE = 'DatasetConnector';

/** The fields `where` compares and `orderBy` orders by (GraphQL enum value → the instance's field). */
const ORDER_FIELDS = { INSTANCE_ID: 'instanceId', CONNECTOR_ID: 'connectorId' } as const;
type OrderField = (typeof ORDER_FIELDS)[keyof typeof ORDER_FIELDS];
const TEXT_FIELDS = { instanceId: false, connectorId: false, version: true } as const satisfies Record<string, boolean>;
type TextField = keyof typeof TEXT_FIELDS;

const MAX_IN_VALUES = 500;
const MAX_PATTERN_LENGTH = 200;

export interface ConnectorOrderInput {
  field: keyof typeof ORDER_FIELDS;
  direction?: 'asc' | 'desc' | null;
}

/** A page of a dataset's connector instances (DatasetConnectorConnection). */
export type ConnectorInstancePage = ListPage<ConnectorInstance>;

export type ConnectorPageArguments = Omit<ListArguments, 'orderBy'> & { orderBy?: readonly ConnectorOrderInput[] | null };

const invalid = (message: string) => new GatewayError(datasetList.invalidInputCode, message);

/** Whether `instance` matches one field's comparison (TextComparison's operators, as the lists read them). */
function compares(instance: ConnectorInstance, name: TextField, comparison: Record<string, unknown>, path: string): boolean {
  const value = instance[name];
  return Object.entries(comparison).every(([operator, operand]) => {
    if (operand === null || operand === undefined) return true;
    switch (operator) {
      case 'eq':
        return value === operand;
      case 'neq':
        return value !== operand;
      case 'in':
      case 'nin': {
        const values = operand as readonly string[];
        if (values.length > MAX_IN_VALUES) throw invalid(`${path}.${name}.${operator}: at most ${MAX_IN_VALUES} values (got ${values.length})`);
        return values.includes(value as string) === (operator === 'in') && (operator === 'nin' || value !== null);
      }
      case 'contains':
      case 'startsWith': {
        const text = operand as string;
        if (text.length < 1) throw invalid(`${path}.${name}.${operator}: give at least 1 character (got 0)`);
        if (text.length > MAX_PATTERN_LENGTH) throw invalid(`${path}.${name}.${operator}: give at most ${MAX_PATTERN_LENGTH} characters (got ${text.length})`);
        if (value === null) return false;
        const [held, pattern] = [value.toLowerCase(), text.toLowerCase()];
        return operator === 'contains' ? held.includes(pattern) : held.startsWith(pattern);
      }
      case 'isNull':
        if (!TEXT_FIELDS[name]) throw invalid(`${path}.${name}.isNull: not an operator of this field (every connector instance has a ${name})`);
        return (value === null) === operand;
      default:
        throw invalid(`${path}.${name}.${operator}: not an operator of this field`);
    }
  });
}

/** Whether `instance` matches `where` (`_and`, `_or`, `_not` and one comparison per field). */
function matches(instance: ConnectorInstance, where: ListWhere | null | undefined, path = 'where'): boolean {
  if (!where) return true;
  return Object.entries(where).every(([name, value]) => {
    if (value === null || value === undefined) return true;
    if (name === '_and') return (value as ListWhere[]).every((item, index) => matches(instance, item, `${path}._and[${index}]`));
    if (name === '_or') return (value as ListWhere[]).some((item, index) => matches(instance, item, `${path}._or[${index}]`));
    if (name === '_not') return !matches(instance, value as ListWhere, `${path}._not`);
    if (!(name in TEXT_FIELDS)) throw invalid(`${path}.${name}: connector instances have no such field`);
    return compares(instance, name as TextField, value as Record<string, unknown>, path);
  });
}

interface OrderKey {
  field: OrderField;
  descending: boolean;
}

/** The client's keys, then the instance id (unique within a dataset), so the order is total. */
function resolveOrder(orderBy: ConnectorPageArguments['orderBy']): OrderKey[] {
  const keys = (orderBy ?? []).map((key) => ({ field: ORDER_FIELDS[key.field], descending: key.direction === 'desc' }));
  return keys.some((key) => key.field === 'instanceId') ? keys : [...keys, { field: 'instanceId', descending: false }];
}

const signatureOf = (order: readonly OrderKey[]) => order.map((key) => `${key.field}.${key.descending ? 'desc' : 'asc'}`).join(',');
const valuesOf = (instance: ConnectorInstance, order: readonly OrderKey[]) => order.map((key) => instance[key.field]);

/** Negative when `a` comes before `b` in `order`. */
function compareValues(a: readonly string[], b: readonly string[], order: readonly OrderKey[]): number {
  for (const [index, key] of order.entries()) {
    const difference = a[index]! < b[index]! ? -1 : a[index]! > b[index]! ? 1 : 0;
    if (difference !== 0) return key.descending ? -difference : difference;
  }
  return 0;
}

/** The sort-key values a cursor of this order names (refused, as the lists refuse one, when it is not one). */
function decodeCursor(cursor: string, order: readonly OrderKey[], argument: 'after' | 'before'): string[] {
  const refuse = (why: string) => invalid(`${argument}: ${JSON.stringify(cursor.slice(0, 60))} is not a cursor of this list (${why})`);
  if (cursor.length > 4096) throw refuse('too long');
  const decoded = decodeCursorText(cursor);
  if (decoded === 'malformed' || 'offset' in decoded) throw refuse('malformed');
  if (decoded.type !== CURSOR_TYPE) throw refuse(`it was made by a list of ${String(decoded.type)}`);
  if (decoded.order !== signatureOf(order)) throw refuse('it was made for another orderBy');
  const values = decoded.values;
  if (!Array.isArray(values) || values.length !== order.length || values.some((value) => typeof value !== 'string')) throw refuse('malformed');
  return values as string[];
}

/** A page of the dataset's connector instances by the list contract; `listMax` bounds `first` and `last`. */
export function connectorPage(dataset: Pick<DatasetRecord, 'connectorsConfig'>, args: ConnectorPageArguments, listMax: number): ConnectorInstancePage {
  const { first, last, after, before } = args;
  if (first !== null && first !== undefined && last !== null && last !== undefined) throw invalid('first and last: give one of them, not both');
  const backward = last !== null && last !== undefined;
  const size = backward ? last : first === undefined ? Math.min(DEFAULT_PAGE_SIZE, listMax) : (first ?? listMax);
  if (!Number.isInteger(size) || size < 0 || size > listMax) throw invalid(`the page size must be an integer from 0 to ${listMax} (got ${size})`);
  const order = resolveOrder(args.orderBy);
  const matching = connectorInstances(dataset)
    .filter((instance) => matches(instance, args.where))
    .sort((a, b) => compareValues(valuesOf(a, order), valuesOf(b, order), order));
  const afterValues = after === null || after === undefined ? undefined : decodeCursor(after, order, 'after');
  const beforeValues = before === null || before === undefined ? undefined : decodeCursor(before, order, 'before');
  const window = matching.filter(
    (instance) => (!afterValues || compareValues(valuesOf(instance, order), afterValues, order) > 0) && (!beforeValues || compareValues(valuesOf(instance, order), beforeValues, order) < 0),
  );
  const items = backward ? window.slice(Math.max(0, window.length - size)) : window.slice(0, size);
  const more = window.length > size;
  const beyondCursor = backward ? beforeValues !== undefined : afterValues !== undefined;
  const notOffered = () => Promise.reject(invalid('connector instances offer no groupBy or aggregate'));
  return {
    items,
    cursors: items.map((instance) => keysetCursor(CURSOR_TYPE, signatureOf(order), valuesOf(instance, order))),
    hasNextPage: backward ? beyondCursor : more,
    hasPreviousPage: backward ? more : beyondCursor,
    countAll: () => Promise.resolve(matching.length),
    // DatasetConnectorConnection offers neither (a dataset runs a handful of connector instances).
    groupBy: notOffered,
    aggregate: notOffered,
  };
}
