// Which GraphQL operations read published records only, and what their answers are made of: each
// module declares, beside its root fields' permissions, the root fields whose answers are made of
// published tables (and the fields that read anything else). From that one declaration the GraphQL
// endpoint and the REST entries (which run the same operations) both know what they may keep in
// the published cache (src/platform/cache/published-cache.ts) and which changes drop it.
import {
  type DocumentNode,
  type FieldNode,
  getNamedType,
  type GraphQLNamedType,
  type GraphQLSchema,
  isCompositeType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type ValueNode,
  valueFromASTUntyped,
} from 'graphql';
import type { FieldPermissions } from '../auth/field-api-ids.js';
import { linkReadType } from '../auth/guard.js';
import type { MadeOf } from '../platform/cache/published-cache.js';
import { fieldsNamedBy } from '../platform/lists/comparisons.js';

/** What a filter's field reads beyond its list (ListField.reads): who may filter by it, which announced tables, whether figures. */
type FilterRead = { apiIds: readonly string[]; tables?: readonly string[]; figures?: boolean };

export interface PublishedReads {
  /** Root fields (`Query.dataset`) whose answers are made of published records only, with the tables they are made of. */
  tables: Readonly<Record<string, readonly string[]>>;
  /** Fields (`Type.field`) that read something else (a dataset's metrics count events): an operation selecting one is never kept. */
  unpublished?: readonly string[];
  /** Fields (`Type.field`) that link to records of other published tables: an answer selecting one is made of those tables too. */
  linked?: Readonly<Record<string, readonly string[]>>;
  /**
   * Fields (`Type.field`) made of figures that move with every ingest call or probe (counters,
   * health) and that no change announces: an answer selecting one is kept for a bounded time only
   * (`figuresMaxAgeMs` of the planner; never when it is 0).
   */
  figures?: readonly string[];
  /**
   * Root fields (`Query.dataset`) whose answer is made of one record of one table, named by an
   * argument (the announcements' key of that table): an operation asking only for that field and
   * only leaves of it (no links, which may reach other records of the same table) is dropped by a
   * change to that record alone, not by every change to the table.
   */
  records?: Readonly<Record<string, { table: string; argument: string }>>;
  /**
   * Filters (by input type, e.g. `DatasetWhere`) whose fields read other tables than their list's: a
   * dataset list filtered by its rules' severity is made of `alert_rules` too; by its ingestion
   * counters (`figures`), it is kept for a bounded time only, as the counters themselves. Worked out
   * from each answer's own `where` (variables included).
   */
  filterReads?: Readonly<Record<string, Readonly<Record<string, FilterRead>>>>;
}

/** The declarations of several modules as one. */
export function combinePublishedReads(...reads: PublishedReads[]): Required<PublishedReads> {
  return {
    tables: Object.assign({}, ...reads.map((read) => read.tables)) as PublishedReads['tables'],
    unpublished: reads.flatMap((read) => read.unpublished ?? []),
    linked: Object.assign({}, ...reads.map((read) => read.linked ?? {})) as NonNullable<PublishedReads['linked']>,
    figures: reads.flatMap((read) => read.figures ?? []),
    records: Object.assign({}, ...reads.map((read) => read.records ?? {})) as NonNullable<PublishedReads['records']>,
    filterReads: Object.assign({}, ...reads.map((read) => read.filterReads ?? {})) as NonNullable<PublishedReads['filterReads']>,
  };
}

export interface ReadPlan {
  /** The tables the operation's answer is made of. */
  tables: string[];
  /** The API ids of each root field it runs, to admit a caller to a kept answer with. */
  apiIds: (readonly string[])[];
  /** The API ids that admit a caller to each type of record its answer reaches through a link (checked, no token taken), as the links' resolvers check them. */
  linkedApiIds: (readonly string[])[];
  /** How long the answer may be kept at most (ms since its read began), when it selects figures; unbounded otherwise. */
  maxAgeMs?: number;
  /** The one record of `tables` the answer is made of, from the operation's variables; undefined: every record. */
  recordOf?: (variables: Readonly<Record<string, unknown>> | undefined) => string | undefined;
  /** What the operation's filters (their fields that read other tables: filterReads) add to it, from the variables. */
  filtersOf?: (variables: Readonly<Record<string, unknown>> | undefined) => { tables: string[]; apiIds: (readonly string[])[]; maxAgeMs?: number };
}

/** What an answer run with `variables` is made of: one record when the plan names it, else its tables. */
export function madeOfAnswer(plan: ReadPlan, variables: Readonly<Record<string, unknown>> | undefined): MadeOf {
  const filters = plan.filtersOf?.(variables);
  const record = filters?.tables.length || filters?.maxAgeMs !== undefined ? undefined : plan.recordOf?.(variables);
  const tables = filters?.tables.length ? [...new Set([...plan.tables, ...filters.tables])] : plan.tables;
  const ages = [plan.maxAgeMs, filters?.maxAgeMs].filter((age): age is number => age !== undefined);
  return { tables, ...(record === undefined ? {} : { record }), ...(ages.length > 0 ? { maxAgeMs: Math.min(...ages) } : {}) };
}

/** The filters of one operation that may read other tables (filterReads), as ReadPlan.filtersOf. */
function filtersReader(filters: readonly { value: ValueNode; reads: Readonly<Record<string, FilterRead>> }[], figuresMaxAgeMs: number): ReadPlan['filtersOf'] {
  if (filters.length === 0) return undefined;
  return (variables) => {
    const tables = new Set<string>();
    const apiIds = new Set<readonly string[]>();
    let figures = false;
    for (const { value, reads } of filters) {
      for (const name of fieldsNamedBy(valueFromASTUntyped(value, variables ?? {}))) {
        const read = reads[name];
        if (!read) continue;
        read.tables?.forEach((table) => tables.add(table));
        apiIds.add(read.apiIds);
        if (read.figures) figures = true;
      }
    }
    return { tables: [...tables], apiIds: [...apiIds], ...(figures ? { maxAgeMs: Math.max(0, figuresMaxAgeMs) } : {}) };
  };
}

/** How the argument `argument` of `field` names a record: a string literal, or a variable holding a string. */
function recordArgument(field: FieldNode, argument: string): ReadPlan['recordOf'] {
  const value = field.arguments?.find((each) => each.name.value === argument)?.value;
  if (value?.kind === Kind.STRING) {
    const literal = value.value;
    return () => literal;
  }
  if (value?.kind !== Kind.VARIABLE) return undefined;
  const name = value.name.value;
  return (variables) => {
    const given = variables?.[name];
    return typeof given === 'string' ? given : undefined;
  };
}

/** `planOf(document, operation)`: the operation's plan when its answer may be kept, else null; worked out once per parsed operation. */
export type ReadPlanner = (document: DocumentNode, operation: OperationDefinitionNode) => ReadPlan | null;

/**
 * `typeApiIds`: the API ids a caller needs to read a record of a type reached through a link
 * (a dataset's templates): a kept answer holds such records, so it is served only to a caller the
 * links' resolvers would have admitted. `figuresMaxAgeMs`: how long an answer selecting `figures` may
 * be kept (0: never).
 */
export function readPlanner(
  schema: GraphQLSchema,
  reads: PublishedReads,
  permissions: FieldPermissions,
  typeApiIds: Readonly<Record<string, readonly string[]>> = {},
  figuresMaxAgeMs = 0,
): ReadPlanner {
  const plans = new WeakMap<OperationDefinitionNode, ReadPlan | null>();
  const unpublished = new Set(reads.unpublished ?? []);
  const figures = new Set(reads.figures ?? []);
  return (document, operation) => {
    const known = plans.get(operation);
    if (known !== undefined) return known;
    let plan: ReadPlan | null = null;
    if (operation.operation === OperationTypeNode.QUERY && operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD)) {
      const tables = new Set<string>();
      const apiIds: (readonly string[])[] = [];
      const linkedApiIds = new Map<string, readonly string[]>();
      let cacheable = true;
      let selectsFigures = false;
      // Whether a field under the root reaches a record (a Node: a dataset's versions, its denorm
      // sources, a connector): such an answer may hold other records of the root's table.
      let reachesRecords = false;
      const filters: { value: ValueNode; reads: Readonly<Record<string, FilterRead>> }[] = [];
      for (const selection of operation.selectionSet.selections) {
        if (selection.kind !== Kind.FIELD) continue;
        const coordinate = `Query.${selection.name.value}`;
        const read = reads.tables[coordinate];
        if (!read) cacheable = false;
        else read.forEach((table) => tables.add(table));
        apiIds.push(permissions[coordinate] ?? []);
      }
      // Every field the operation (and the fragments it spreads) selects, by its parent type.
      const typeInfo = new TypeInfo(schema);
      visit(
        document,
        visitWithTypeInfo(typeInfo, {
          Field(node) {
            const parent = typeInfo.getParentType();
            if (!parent || !isCompositeType(getNamedType(parent))) return;
            const returned = typeInfo.getType();
            const linkedType = returned && parent.name !== 'Query' ? linkReadType(typeApiIds, getNamedType(returned)) : undefined;
            if (linkedType && isNode(schema.getType(linkedType))) reachesRecords = true;
            if (linkedType && typeApiIds[linkedType]) linkedApiIds.set(linkedType, typeApiIds[linkedType]);
            const coordinate = `${parent.name}.${node.name.value}`;
            if (unpublished.has(coordinate) || (figures.has(coordinate) && figuresMaxAgeMs <= 0)) cacheable = false;
            if (figures.has(coordinate)) selectsFigures = true;
            reads.linked?.[coordinate]?.forEach((table) => tables.add(table));
            const field = typeInfo.getFieldDef();
            for (const argument of node.arguments ?? []) {
              const definition = field?.args.find((each) => each.name === argument.name.value);
              const filterReads = definition ? reads.filterReads?.[getNamedType(definition.type).name] : undefined;
              if (filterReads) filters.push({ value: argument.value, reads: filterReads });
            }
          },
        }),
      );
      const filtersOf = filtersReader(filters, figuresMaxAgeMs);
      if (cacheable) plan = { tables: [...tables], apiIds, linkedApiIds: [...linkedApiIds.values()], ...(selectsFigures ? { maxAgeMs: figuresMaxAgeMs } : {}), ...(filtersOf ? { filtersOf } : {}) };
      const [only, ...others] = operation.selectionSet.selections;
      const ofRecord = only?.kind === Kind.FIELD && others.length === 0 ? reads.records?.[`Query.${only.name.value}`] : undefined;
      // The record's own fields only (values of it, embedded objects included, through fragments too):
      // a field reaching a record could read other records of the same table (a dataset's denorm sources).
      if (plan && ofRecord && only?.kind === Kind.FIELD && !reachesRecords && tables.size === 1 && tables.has(ofRecord.table)) {
        const recordOf = recordArgument(only, ofRecord.argument);
        if (recordOf) plan.recordOf = recordOf;
      }
    }
    plans.set(operation, plan);
    return plan;
  };
}

/** A type with an identity of its own (implements Node): a record, not a value embedded in one. */
function isNode(type: GraphQLNamedType | null | undefined): boolean {
  return isObjectType(type) && type.getInterfaces().some((each) => each.name === 'Node');
}
