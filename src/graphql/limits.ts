// Limits on what one GraphQL request may ask for, so a single document cannot make the gateway do
// unbounded work: depth and aliases (validation rules), tokens (graphql's parser, set in server.ts),
// cost (below: 1 per field, a list field's selection counted once per item of its page, `first`, a
// count of a list priced by the rows it may read),
// and the number of operations in a batch; and the lengths of strings, keys and arrays in an
// operation's variables and literals (the REST router checks its bodies the same way). REST entries
// run fixed documents and are not limited here.
import type { NextFunction, Request, Response } from 'express';
import {
  type ASTNode,
  BREAK,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getIntrospectionQuery,
  getLocation,
  getNamedType,
  getNullableType,
  type GraphQLCompositeType,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  isCompositeType,
  isInputType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  parse,
  print,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  typeFromAST,
  type ValidationContext,
  type ValidationRule,
  valueFromAST,
  type ValueNode,
  visit,
} from 'graphql';
import { narrowsByIndex } from '../platform/lists/comparisons.js';
import { fieldNamed, type ListDeclaration } from '../platform/lists/declaration.js';
import { DEFAULT_PAGE_SIZE, type ListWhere } from '../platform/lists/list-query.js';
import { characterCount, JSON_LIMIT_SETTINGS, type JsonLimits } from '../validation/json-limits.js';
import { listOfConnection } from './lists.js';

/** The list argument whose value is a field's page size. */
const PAGE_SIZE_ARGUMENT = 'first';
const LAST_ARGUMENT = 'last';

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  return fragments;
}

/** Nodes a check has visited, for tests that its work grows linearly with the document. */
export interface WorkCounter {
  visited: number;
}

/**
 * Depth of a selection set. Each fragment's depth is computed once and remembered, so a chain of
 * fragments that each spread the next twice costs one visit per fragment, not 2^n.
 */
function depthOf(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, memo: Map<string, number>, visiting: Set<string>, work: WorkCounter): number {
  let deepest = 0;
  for (const selection of selectionSet.selections) {
    work.visited += 1;
    if (selection.kind === Kind.FIELD) {
      deepest = Math.max(deepest, selection.selectionSet ? 1 + depthOf(selection.selectionSet, fragments, memo, visiting, work) : 1);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, depthOf(selection.selectionSet, fragments, memo, visiting, work));
    } else {
      const name = selection.name.value;
      const known = memo.get(name);
      if (known !== undefined) {
        deepest = Math.max(deepest, known);
        continue;
      }
      const fragment = fragments.get(name);
      // A cycle is reported by graphql's own NoFragmentCyclesRule; here it only must not loop.
      if (!fragment || visiting.has(name)) continue;
      visiting.add(name);
      const depth = depthOf(fragment.selectionSet, fragments, memo, visiting, work);
      visiting.delete(name);
      memo.set(name, depth);
      deepest = Math.max(deepest, depth);
    }
  }
  return deepest;
}

/** The deepest nesting of fields in `operation` (root fields are depth 1), in time linear in the document. */
export function operationDepth(document: DocumentNode, operation: OperationDefinitionNode, work: WorkCounter = { visited: 0 }): number {
  return depthOf(operation.selectionSet, fragmentsOf(document), new Map(), new Set(), work);
}

/** Root fields of the introspection system, which a schema explorer asks for (GraphiQL's Docs). */
const INTROSPECTION_ROOT_FIELDS = new Set(['__schema', '__type', '__typename']);

function onlyIntrospection(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen: Set<string>): boolean {
  return selectionSet.selections.every((selection) => {
    if (selection.kind === Kind.FIELD) return INTROSPECTION_ROOT_FIELDS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return onlyIntrospection(selection.selectionSet, fragments, seen);
    const fragment = fragments.get(selection.name.value);
    if (!fragment || seen.has(selection.name.value)) return true;
    seen.add(selection.name.value);
    return onlyIntrospection(fragment.selectionSet, fragments, seen);
  });
}

/**
 * Depth of the standard introspection query with every option on (what GraphiQL and codegen send).
 * Its type references nest `ofType` many levels deep, past any sensible limit for data queries.
 */
export const STANDARD_INTROSPECTION_DEPTH = (() => {
  const document = parse(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true }));
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  return operation ? operationDepth(document, operation) : 0;
})();

/**
 * Refuses operations whose fields nest deeper than `maxDepth` (root fields are depth 1). An
 * operation that asks only for introspection may nest as deep as the standard introspection query,
 * so a schema explorer works whatever the limit (the cost limit still applies to it).
 */
export function depthLimitRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext) => {
    const document = context.getDocument();
    return {
      OperationDefinition(node) {
        const depth = operationDepth(document, node);
        if (depth <= maxDepth) return;
        if (depth <= STANDARD_INTROSPECTION_DEPTH && onlyIntrospection(node.selectionSet, fragmentsOf(document), new Set())) return;
        context.reportError(new GraphQLError(`The operation nests ${depth} levels deep; at most ${maxDepth} are allowed (GRAPHQL_MAX_DEPTH).`, { nodes: [node] }));
      },
    };
  };
}

/** Refuses documents with more than `maxAliases` aliases (each alias is one more call of a field). */
export function aliasLimitRule(maxAliases: number): ValidationRule {
  return (context: ValidationContext) => {
    let aliases = 0;
    return {
      Field(node) {
        if (node.alias) aliases += 1;
      },
      Document: {
        leave() {
          if (aliases > maxAliases) context.reportError(new GraphQLError(`The document uses ${aliases} aliases; at most ${maxAliases} are allowed (GRAPHQL_MAX_ALIASES).`));
        },
      },
    };
  };
}

/** How `priceOperation` prices pages and counts. */
export interface CostOptions {
  /** The page size a list field serves when `first` is null (the largest configured *_LIST_MAX). */
  unboundedPageSize: number;
  /** The planner's estimate of a table's rows (read at start, refreshed each minute); undefined when not known, and a count is then priced at COUNT_COST. */
  tableRows?: (table: string) => number | undefined;
}

const DEFAULT_COST_OPTIONS: CostOptions = { unboundedPageSize: 1000 };

/** What a count (`totalCount`, or one `groupBy`) of a list costs at least: a statement of its own over the filtered set, which a page does not read. */
export const COUNT_COST = 25;
/** Rows of a list's table that a count an index serves may read, per unit of cost. */
export const INDEXED_COUNT_ROWS_PER_COST = 100;

/** The rows a count over one connection may read: its list, its table's estimate, and whether an index serves its `where`. */
interface CountedRows {
  plural: string;
  rows: number;
  indexed: boolean;
  /** Set for a page ordered first by a figure no index orders: that field (the rows are read and sorted, not counted). */
  sortedBy?: string;
}

/**
 * A count's price: COUNT_COST, plus 1 per INDEXED_COUNT_ROWS_PER_COST rows of the list's table when
 * an index serves the `where` (or there is none), or 1 per row when none does (a `where` made only of
 * `_not`: the count reads the whole table). The table's size stands for the filtered set, which is
 * not known before the count runs; so a count on a large table with such a `where` is over the
 * default limit, and refused before any SQL runs.
 */
export function countPrice(rows: number, indexed: boolean): number {
  const known = Number.isFinite(rows) && rows > 0 ? rows : 0;
  return COUNT_COST + (indexed ? Math.floor(known / INDEXED_COUNT_ROWS_PER_COST) : Math.ceil(known));
}

/** The connection `search` answers, and the table its counts read (src/modules/search). */
const SEARCH_CONNECTION = 'SearchConnection';
const SEARCH_TABLE = 'search_documents';

/** The count fields of a connection of the list contract: each is one statement over the filtered set (an `aggregate` one for all its figures). */
const COUNT_FIELDS = new Set(['totalCount', 'groupBy', 'aggregate']);

/** The costliest count of an operation (by its price times how often it is asked), named by its path. */
interface CostliestCount {
  path: string;
  price: number;
  times: number;
  counted: CountedRows;
}

/** An operation's cost, what its counts make of it, and its costliest count. */
export interface PricedOperation {
  cost: number;
  counts: number;
  costliest?: CostliestCount;
}

const weightOf = (count: CostliestCount | undefined) => (count ? count.price * count.times : 0);

function addPriced(total: PricedOperation, part: PricedOperation): void {
  total.cost += part.cost;
  total.counts += part.counts;
  if (weightOf(part.costliest) > weightOf(total.costliest)) total.costliest = part.costliest;
}

/** `part` asked `times` times (once per item of a page), its costliest count's path under `prefix`. */
function scaled(part: PricedOperation, times: number, prefix: string | undefined): PricedOperation {
  const costliest = part.costliest && { ...part.costliest, times: part.costliest.times * times, path: prefix ? `${prefix}.${part.costliest.path}` : part.costliest.path };
  return { cost: part.cost * times, counts: part.counts * times, ...(costliest ? { costliest } : {}) };
}

/**
 * Whether a `where` (as written, or a variable's raw value) can be served by an index: empty, or
 * narrowing by some comparison an index answers (not `neq`, `nin`, a 1–2 character `contains`, nor a
 * field computed from another table: those are priced as a read of the whole table).
 */
function servedByIndex(list: ListDeclaration, where: unknown): boolean {
  if (where === null || typeof where !== 'object' || Array.isArray(where)) return true;
  if (!Object.values(where).some((value) => value !== null && value !== undefined)) return true;
  try {
    return narrowsByIndex(list, where as ListWhere);
  } catch {
    return true; // a malformed value is refused when the variables are coerced, before any statement
  }
}

/**
 * The field a page's `orderBy` (as GraphQL reads it) leads with when no index orders it (a figure
 * computed per row, such as a dataset's ingestion counters): the page then reads and sorts its whole
 * filtered set before its first item, which a count prices. Undefined for an order an index serves.
 */
function leadingScanOrder(list: ListDeclaration, orderBy: unknown): string | undefined {
  const first: unknown = Array.isArray(orderBy) ? orderBy[0] : orderBy;
  const given = first !== null && typeof first === 'object' ? (first as { field?: unknown }).field : undefined;
  const name = typeof given === 'string' ? fieldNamed(list, given) : undefined;
  return name !== undefined && list.fields[name]!.scan ? String(given) : undefined;
}

/**
 * Cost of an operation: each field costs 1, plus the cost of its selection; a list field counts its
 * selection once per item of the page asked for (`first`, on the list field itself or on the
 * connection around it), so `templates(first: 1000) { nodes { id name } }` costs 1 + (1 + 1000 × 2):
 * a connection's own fields (pageInfo) count once. A count of the list contract (`totalCount`, each
 * `groupBy`, each `aggregate`) costs countPrice instead of 1 (COUNT_COST and the rows it may read), once per
 * connection it is asked on: on a list nested in each item of a page, once per item. `first: null`
 * costs what the service then serves: its largest page. Each fragment is priced once per page size
 * (and count) it is spread under, so the work is linear in the document however often fragments are spread.
 */
export function priceOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
  options: CostOptions = DEFAULT_COST_OPTIONS,
  work: WorkCounter = { visited: 0 },
): PricedOperation {
  const fragments = fragmentsOf(document);
  const root = operation.operation === OperationTypeNode.QUERY ? schema.getQueryType() : operation.operation === OperationTypeNode.MUTATION ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root) return { cost: 0, counts: 0 };
  const variableDefaults = new Map<string, unknown>();
  // The variables as the operation sees them (defaults included), for the `where` of a counted connection.
  const withDefaults: Record<string, unknown> = { ...variables };
  for (const definition of operation.variableDefinitions ?? []) {
    const value = definition.defaultValue;
    const name = definition.variable.name.value;
    if (value?.kind === Kind.INT) variableDefaults.set(name, Number(value.value));
    else if (value?.kind === Kind.NULL) variableDefaults.set(name, null);
    const type = value && !Object.hasOwn(variables, name) ? typeFromAST(schema, definition.type) : undefined;
    if (value && type && isInputType(type)) withDefaults[name] = valueFromAST(value, type);
  }

  /** An argument's value as written (a variable resolved): undefined when not given. */
  const argumentValue = (node: { arguments?: readonly { name: { value: string }; value: ValueNode }[] }, name: string): unknown => {
    const given = node.arguments?.find((arg) => arg.name.value === name);
    if (!given) return undefined;
    if (given.value.kind === Kind.VARIABLE) {
      const variable = given.value.name.value;
      return Object.hasOwn(variables, variable) ? variables[variable] : variableDefaults.get(variable);
    }
    if (given.value.kind === Kind.INT) return Number(given.value.value);
    if (given.value.kind === Kind.NULL) return null;
    return undefined;
  };

  const pageSize = (field: GraphQLField<unknown, unknown>, node: { arguments?: readonly { name: { value: string }; value: ValueNode }[] }): number | undefined => {
    const argument = field.args.find((arg) => arg.name === PAGE_SIZE_ARGUMENT);
    if (!argument) return undefined;
    let value = argumentValue(node, PAGE_SIZE_ARGUMENT);
    // A list of the list contract pages backwards with `last` instead, and serves its default page with neither.
    if (value === undefined && field.args.some((arg) => arg.name === LAST_ARGUMENT)) {
      const last = argumentValue(node, LAST_ARGUMENT);
      value = last === undefined || last === null ? (argument.defaultValue ?? DEFAULT_PAGE_SIZE) : last;
    }
    if (value === undefined) value = argument.defaultValue;
    if (value === null || value === undefined) return options.unboundedPageSize;
    return typeof value === 'number' && Number.isFinite(value) ? Math.max(0, value) : 1;
  };

  /** An argument's value as GraphQL would read it (object literals and variables inside them included). */
  const inputValue = (field: GraphQLField<unknown, unknown>, node: FieldNode, name: string): unknown => {
    const definition = field.args.find((arg) => arg.name === name);
    const given = node.arguments?.find((arg) => arg.name.value === name);
    return definition && given ? valueFromAST(given.value, definition.type, withDefaults) : undefined;
  };

  /**
   * What a count over the connection `field` returns may read; undefined when it is no connection of
   * the list contract. A nested one (not on the root type) reads its parent's items through the
   * link's own index, whatever its `where`.
   */
  const countedOn = (field: GraphQLField<unknown, unknown>, node: FieldNode, connection: GraphQLNamedType, nested: boolean): CountedRows | undefined => {
    // A search's counts read every match of its query in the search table, found through its text index.
    if (connection.name === SEARCH_CONNECTION) return { plural: 'search documents', rows: options.tableRows?.(SEARCH_TABLE) ?? 0, indexed: true };
    const list = listOfConnection(connection);
    if (!list) return undefined;
    return { plural: list.plural, rows: options.tableRows?.(list.table) ?? 0, indexed: nested || filtered(field, node) || servedByIndex(list, inputValue(field, node, 'where')) };
  };

  /** Whether an older `filter` narrows the list: by equalities (indexed), ANDed with the `where`. */
  const filtered = (field: GraphQLField<unknown, unknown>, node: FieldNode): boolean => {
    const filter = inputValue(field, node, 'filter');
    return filter !== null && typeof filter === 'object' && Object.values(filter).some((value) => value !== null && value !== undefined);
  };

  /**
   * A root page ordered first by a figure no index orders, priced as a count over the same rows (a
   * page under each item of another reads that item's own through the link's index, as its counts do).
   */
  const sortedByScan = (field: GraphQLField<unknown, unknown>, node: FieldNode, connection: GraphQLNamedType, counted: CountedRows): PricedOperation | undefined => {
    const list = listOfConnection(connection);
    const sortedBy = list && leadingScanOrder(list, inputValue(field, node, 'orderBy'));
    if (!sortedBy) return undefined;
    // Unlike a count, which an index answers whole, the figure is computed for every row sorted: only a
    // `where` or `filter` an index narrows by keeps that to fewer rows than the table's.
    const where = inputValue(field, node, 'where');
    const indexed = filtered(field, node) || (where !== null && typeof where === 'object' && narrowsByIndex(list, where as ListWhere));
    const price = countPrice(counted.rows, indexed);
    const path = `${node.name.value}(orderBy: ${print(node.arguments!.find((arg) => arg.name.value === 'orderBy')!.value)})`;
    return { cost: price, counts: price, costliest: { path, price, times: 1, counted: { ...counted, indexed, sortedBy } } };
  };

  // A fragment's cost depends only on the page size and the count it is spread under (its type condition fixes its type).
  const fragmentCosts = new Map<string, PricedOperation>();
  // `page`: the page size a connection field asked for, applied to the list fields right below it;
  // `counted`: what a count right below it (totalCount, groupBy, aggregate) may read.
  const costOf = (selectionSet: SelectionSetNode, type: GraphQLCompositeType, visiting: Set<string>, page: number | undefined, counted: CountedRows | undefined): PricedOperation => {
    const total: PricedOperation = { cost: 0, counts: 0 };
    for (const selection of selectionSet.selections) {
      work.visited += 1;
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        const field = fieldOf(schema, type, name);
        if (!field) {
          total.cost += 1; // __typename, or a field validation has already refused
          continue;
        }
        const named = getNamedType(field.type);
        const own = pageSize(field, selection);
        const isList = isListType(getNullableType(field.type));
        const connection = own !== undefined && !isList ? countedOn(field, selection, named, type !== root) : undefined;
        const inner = selection.selectionSet && isCompositeType(named) ? costOf(selection.selectionSet, named, visiting, isList ? undefined : own, connection) : { cost: 0, counts: 0 };
        addPriced(total, scaled(inner, isList ? (own ?? page ?? 1) : 1, name));
        const sorted = connection && type === root ? sortedByScan(field, selection, named, connection) : undefined;
        if (sorted) addPriced(total, sorted);
        if (counted && COUNT_FIELDS.has(name)) {
          const price = countPrice(counted.rows, counted.indexed);
          const given = selection.arguments ?? [];
          const path = given.length > 0 ? `${name}(${given.map((arg) => `${arg.name.value}: ${print(arg.value)}`).join(', ')})` : name;
          addPriced(total, { cost: price, counts: price, costliest: { path, price, times: 1, counted } });
        } else {
          total.cost += 1;
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        addPriced(total, costOf(selection.selectionSet, condition && isCompositeType(condition) ? condition : type, visiting, page, counted));
      } else {
        const name = selection.name.value;
        const key = `${name}@${page ?? ''}@${counted ? `${counted.plural}:${counted.rows}:${counted.indexed}` : ''}`;
        const known = fragmentCosts.get(key);
        if (known !== undefined) {
          addPriced(total, known);
          continue;
        }
        const fragment = fragments.get(name);
        if (!fragment || visiting.has(name)) continue;
        const condition = schema.getType(fragment.typeCondition.name.value);
        visiting.add(name);
        const cost = costOf(fragment.selectionSet, condition && isCompositeType(condition) ? condition : type, visiting, page, counted);
        visiting.delete(name);
        fragmentCosts.set(key, cost);
        addPriced(total, cost);
      }
    }
    return total;
  };
  return costOf(operation.selectionSet, root, new Set(), undefined, undefined);
}

/**
 * Why an operation is over `maxCost`: its cost, and when counts make part of it, the costliest
 * count by its path (`auditRecords.totalCount`) and what it would read; `advice` adds what to ask for instead.
 */
export function costRefusal(priced: PricedOperation, maxCost: number, advice = true): string {
  const parts = [`The operation costs ${priced.cost}; at most ${maxCost} is allowed (GRAPHQL_MAX_COST).`];
  const count = priced.costliest;
  if (priced.counts > 0 && count) {
    const rows = Math.round(count.counted.rows);
    const read = count.counted.sortedBy
      ? `its orderBy leads with ${count.counted.sortedBy}, a figure no index orders: the page reads and sorts ${count.counted.indexed ? `up to ${rows}` : `all ${rows}`} ${count.counted.plural} before its first item`
      : count.counted.indexed
        ? rows > 0
          ? `a count of up to ${rows} ${count.counted.plural} through an index`
          : `a count of ${count.counted.plural}`
        : `its where compares no field positively (only _not), so no index serves it: a count reads all ${rows} ${count.counted.plural}`;
    parts.push(`Counts (totalCount, groupBy) make ${priced.counts} of it; the costliest is ${count.path}, ${count.times > 1 ? `${count.times} × ` : ''}${count.price} (${read}).`);
  }
  if (advice) parts.push(priced.counts > 0 ? 'Ask for smaller pages (first), fewer fields, or fewer counts under a narrower where.' : 'Ask for smaller pages (first) or fewer fields.');
  return parts.join(' ');
}

/** The field `name` of `type`, the introspection fields included (so a schema explorer's query is costed too). */
function fieldOf(schema: GraphQLSchema, type: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (type === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  return isObjectType(type) || isInterfaceType(type) ? type.getFields()[name] : undefined;
}

/** The first string, object field name or list written in `document` that is over `limits`, described. */
export function literalOverLimits(document: DocumentNode, limits: JsonLimits): string | undefined {
  let found: string | undefined;
  const where = (node: ASTNode) => {
    if (!node.loc) return 'in the document';
    const { line, column } = getLocation(node.loc.source, node.loc.start);
    return `at line ${line}, column ${column} of the document`;
  };
  const tooLong = (what: string, node: ASTNode, text: string) => {
    if (text.length <= limits.maxStringLength) return false;
    const length = characterCount(text);
    if (length <= limits.maxStringLength) return false;
    found = `the ${what} ${where(node)} is ${length} characters long; the limit is ${limits.maxStringLength} (${JSON_LIMIT_SETTINGS.string})`;
    return true;
  };
  visit(document, {
    StringValue: (node) => (tooLong('string', node, node.value) ? BREAK : undefined),
    ObjectField: (node) => (tooLong('object field name', node, node.name.value) ? BREAK : undefined),
    ListValue: (node) => {
      if (node.values.length <= limits.maxArrayLength) return undefined;
      found = `the list ${where(node)} has ${node.values.length} items; the limit is ${limits.maxArrayLength} (${JSON_LIMIT_SETTINGS.array})`;
      return BREAK;
    },
  });
  return found;
}

/** Refuses a batched request (a JSON array) longer than `maxBatch` before Apollo runs any of it. */
export function limitBatch(maxBatch: number) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (Array.isArray(req.body) && req.body.length > maxBatch) {
      res.status(400).json({ errors: [{ message: `A batch may hold at most ${maxBatch} operations (GRAPHQL_MAX_BATCH); this one holds ${req.body.length}.`, extensions: { code: 'BAD_REQUEST' } }] });
      return;
    }
    next();
  };
}
