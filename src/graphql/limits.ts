// Limits on what one GraphQL request may ask for, so a single document cannot make the gateway do
// unbounded work: depth and aliases (validation rules), tokens (graphql's parser, set in server.ts),
// cost (below: 1 per field, a list field's selection counted once per item of its page, `first`),
// and the number of operations in a batch; and the lengths of strings, keys and arrays in an
// operation's variables and literals (the REST router checks its bodies the same way). REST entries
// run fixed documents and are not limited here.
import type { ApolloServerPlugin } from '@apollo/server';
import type { NextFunction, Request, Response } from 'express';
import {
  type ASTNode,
  BREAK,
  type DocumentNode,
  type FragmentDefinitionNode,
  getIntrospectionQuery,
  getLocation,
  getNamedType,
  getNullableType,
  type GraphQLCompositeType,
  GraphQLError,
  type GraphQLField,
  type GraphQLSchema,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  parse,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
  visit,
} from 'graphql';
import { GatewayError } from '../errors.js';
import { DEFAULT_PAGE_SIZE } from '../platform/lists/list-query.js';
import { characterCount, describeJsonLimitViolation, findJsonLimitViolation, JSON_LIMIT_SETTINGS, type JsonLimits } from '../validation/json-limits.js';

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
        context.reportError(new GraphQLError(`The operation nests ${depth} levels deep; at most ${maxDepth} are allowed.`, { nodes: [node] }));
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
          if (aliases > maxAliases) context.reportError(new GraphQLError(`The document uses ${aliases} aliases; at most ${maxAliases} are allowed.`));
        },
      },
    };
  };
}

/** How `operationCost` prices pages: `first: null` is served as the largest page a list returns. */
export interface CostOptions {
  /** The page size a list field serves when `first` is null (the largest configured *_LIST_MAX). */
  unboundedPageSize: number;
}

const DEFAULT_COST_OPTIONS: CostOptions = { unboundedPageSize: 1000 };

/**
 * Cost of an operation: each field costs 1, plus the cost of its selection; a list field counts its
 * selection once per item of the page asked for (`first`, on the list field itself or on the
 * connection around it), so `templates(first: 1000) { totalCount nodes { id name } }` costs
 * 1 + 1 + (1 + 1000 × 2): a connection's own fields (totalCount, pageInfo) count once. `first: null`
 * costs what the service then serves: its largest page. Each fragment is priced once per page size
 * it is spread under, so the work is linear in the document however often fragments are spread.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
  options: CostOptions = DEFAULT_COST_OPTIONS,
  work: WorkCounter = { visited: 0 },
): number {
  const fragments = fragmentsOf(document);
  const root = operation.operation === OperationTypeNode.QUERY ? schema.getQueryType() : operation.operation === OperationTypeNode.MUTATION ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root) return 0;
  const variableDefaults = new Map<string, unknown>();
  for (const definition of operation.variableDefinitions ?? []) {
    const value = definition.defaultValue;
    if (value?.kind === Kind.INT) variableDefaults.set(definition.variable.name.value, Number(value.value));
    else if (value?.kind === Kind.NULL) variableDefaults.set(definition.variable.name.value, null);
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

  // A fragment's cost depends only on the page size it is spread under (its type condition fixes its type).
  const fragmentCosts = new Map<string, number>();
  // `page`: the page size a connection field asked for, applied to the list fields right below it.
  const costOf = (selectionSet: SelectionSetNode, type: GraphQLCompositeType, visiting: Set<string>, page: number | undefined): number => {
    let total = 0;
    for (const selection of selectionSet.selections) {
      work.visited += 1;
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        const field = fieldOf(schema, type, name);
        if (!field) {
          total += 1; // __typename, or a field validation has already refused
          continue;
        }
        const named = getNamedType(field.type);
        const own = pageSize(field, selection);
        const isList = isListType(getNullableType(field.type));
        const inner = selection.selectionSet && isCompositeType(named) ? costOf(selection.selectionSet, named, visiting, isList ? undefined : own) : 0;
        total += 1 + (isList ? (own ?? page ?? 1) : 1) * inner;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        total += costOf(selection.selectionSet, condition && isCompositeType(condition) ? condition : type, visiting, page);
      } else {
        const name = selection.name.value;
        const key = `${name}@${page ?? ''}`;
        const known = fragmentCosts.get(key);
        if (known !== undefined) {
          total += known;
          continue;
        }
        const fragment = fragments.get(name);
        if (!fragment || visiting.has(name)) continue;
        const condition = schema.getType(fragment.typeCondition.name.value);
        visiting.add(name);
        const cost = costOf(fragment.selectionSet, condition && isCompositeType(condition) ? condition : type, visiting, page);
        visiting.delete(name);
        fragmentCosts.set(key, cost);
        total += cost;
      }
    }
    return total;
  };
  return costOf(operation.selectionSet, root, new Set(), undefined);
}

/** The field `name` of `type`, the introspection fields included (so a schema explorer's query is costed too). */
function fieldOf(schema: GraphQLSchema, type: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (type === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  return isObjectType(type) || isInterfaceType(type) ? type.getFields()[name] : undefined;
}

function limitError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
}

/** What the cost plugin needs of a request's context: where the document's price goes (src/auth/access.ts). */
interface PricedContext {
  access?: { priceDocument(cost: number): void };
}

/**
 * Refuses an operation whose cost (with the request's variables) is over `maxCost`, before it runs;
 * an answer carries the cost it was priced at in `extensions.cost`, so a client sees what a query
 * costs before it reaches the limit. The cost is also the price the caller's rate limit charges
 * (paid by the first root field admitted).
 */
export function costLimitPlugin<TContext extends PricedContext>(maxCost: number, options: CostOptions = DEFAULT_COST_OPTIONS): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      let cost: number | undefined;
      return {
        async didResolveOperation({ schema, document, operation, request, contextValue }) {
          if (!operation) return;
          // Apollo would execute a subscription as a query and fail inside; it has transports of its own.
          if (operation.operation === OperationTypeNode.SUBSCRIPTION) {
            throw limitError('A subscription is served over WebSocket (graphql-transport-ws) on /graphql or Server-Sent Events on /graphql/stream, not over a plain HTTP request.');
          }
          cost = operationCost(schema, document, operation, request.variables ?? {}, options);
          if (cost > maxCost) throw limitError(`The operation costs ${cost}; at most ${maxCost} is allowed. Ask for smaller pages (first) or fewer fields.`);
          contextValue.access?.priceDocument(cost);
        },
        async willSendResponse({ response }) {
          if (cost === undefined || response.body.kind !== 'single') return;
          response.body.singleResult.extensions = { ...response.body.singleResult.extensions, cost };
        },
      };
    },
  };
}

/** The first string, object field name or list written in `document` that is over `limits`, described. */
function literalOverLimits(document: DocumentNode, limits: JsonLimits): string | undefined {
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

/**
 * Refuses an operation whose variables hold a string or object key longer than
 * `limits.maxStringLength` characters or an array longer than `limits.maxArrayLength` items
 * (JSON_MAX_STRING_LENGTH, JSON_MAX_ARRAY_LENGTH), and likewise values written into the document
 * itself, before anything is coerced or runs: HTTP 400, INVALID_INPUT (responseCode BAD_REQUEST),
 * the message naming the path under /variables (or the line and column in the document). Each
 * operation of a batch is checked on its own.
 */
export function jsonLimitsPlugin<TContext extends object>(limits: JsonLimits): ApolloServerPlugin<TContext> {
  // Apollo keeps one parsed document per distinct query text, so the literals of each are walked once.
  const literalProblems = new WeakMap<DocumentNode, string | null>();
  const literalProblem = (document: DocumentNode): string | undefined => {
    let found = literalProblems.get(document);
    if (found === undefined) literalProblems.set(document, (found = literalOverLimits(document, limits) ?? null));
    return found ?? undefined;
  };
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document }) {
          const violation = findJsonLimitViolation(request.variables ?? {}, limits);
          const message = violation ? describeJsonLimitViolation(violation, '/variables') : literalProblem(document);
          if (message === undefined) return;
          throw new GraphQLError(message, { originalError: new GatewayError('INVALID_INPUT', message), extensions: { http: { status: 400 } } });
        },
      };
    },
  };
}

/** Refuses a batched request (a JSON array) longer than `maxBatch` before Apollo runs any of it. */
export function limitBatch(maxBatch: number) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (Array.isArray(req.body) && req.body.length > maxBatch) {
      res.status(400).json({ errors: [{ message: `A batch may hold at most ${maxBatch} operations; this one holds ${req.body.length}.`, extensions: { code: 'BAD_REQUEST' } }] });
      return;
    }
    next();
  };
}
