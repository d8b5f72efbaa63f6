// Operations run as compiled code (graphql-jit): each document is compiled once into a function of
// its own, which then resolves its fields without graphql-js walking the document and the schema for
// every field of every record. On the executed dashboard page (50 datasets with their health,
// counts, connectors, alert rules and channels) that is about a quarter of the page's time, most of it
// the per-field promise bookkeeping graphql-js does (docs/performance.md). The resolvers, the context
// and the schema are the same: only the walk changes.
//
// One kind of operation stays with graphql-js: one with a variable whose input type contains itself
// (a list's `where`, with its `_or` and `_not`). graphql-jit inlines a variable's checks type by type,
// so such a type never ends (graphql-jit issues #81 and #175): those operations run as before.
//
// What callers see stays graphql-js's: a variable its type refuses is refused with graphql-js's own
// error (its message and its node, which tells BAD_USER_INPUT apart), and every error is a graphql-js
// GraphQLError carrying the resolver's own error, so src/graphql/errors.ts classifies it as before.
import {
  execute,
  getNamedType,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  isInputObjectType,
  typeFromAST,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLInputObjectType,
  type GraphQLSchema,
  type SourceLocation,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

export interface CompiledOperation {
  document: DocumentNode;
  /** Names the document (its text's hash, or a REST entry's operation): the compiled code is kept under it. */
  documentKey: string;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
  contextValue: unknown;
}

/** What the executor keeps: documents compiled, documents left to graphql-js, and the characters of the compiled ones' texts. */
export interface CompiledStats {
  compiled: number;
  onGraphqlJs: number;
  sourceCharacters: number;
}

export interface ExecuteCompiled {
  (operation: CompiledOperation): Promise<ExecutionResult>;
  /** What it keeps now (for tests and diagnostics). */
  stats(): CompiledStats;
}

/**
 * The errors graphql-jit makes are its own class (an heir of graphql-js's without its constructor:
 * no `extensions` object, which Apollo reads): the same fields, made into graphql-js's.
 */
interface JitError {
  message: string;
  locations?: readonly SourceLocation[];
  path?: readonly (string | number)[];
  originalError?: Error | null;
  extensions?: Record<string, unknown>;
}

function asGraphQLError(error: JitError): GraphQLError {
  // A field's error always carries an error of its own in graphql-js (a null in a non-null field
  // too): errors.ts tells an unexpected failure, masked and logged, from a refused input by it.
  const originalError = error.originalError ?? (error.path ? new Error(error.message) : undefined);
  const converted = new GraphQLError(error.message, { path: error.path, originalError, extensions: error.extensions });
  // graphql-js works out locations from AST nodes, which graphql-jit does not keep: its own are the same.
  if (error.locations) (converted as { locations?: readonly SourceLocation[] }).locations = error.locations;
  return converted;
}

function withGraphQLErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors) return result;
  return { ...result, errors: result.errors.map((error) => asGraphQLError(error)) };
}

/** The input object types of `schema` that contain themselves, or reach one that does, through their fields. */
function inputTypesReachingACycle(schema: GraphQLSchema): Set<string> {
  const found = new Set<string>();
  const clear = new Set<string>();
  /** Whether a cycle is reachable from `type`; `path` holds the types being walked above it. */
  const walk = (type: GraphQLInputObjectType, path: Set<string>): boolean => {
    if (path.has(type.name) || found.has(type.name)) return true;
    if (clear.has(type.name)) return false;
    path.add(type.name);
    let reaches = false;
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      if (isInputObjectType(named) && walk(named, path)) reaches = true;
    }
    path.delete(type.name);
    (reaches ? found : clear).add(type.name);
    return reaches;
  };
  for (const type of Object.values(schema.getTypeMap())) if (isInputObjectType(type)) walk(type, new Set());
  return found;
}

/**
 * Values by key, the least recently touched forgotten first (a Map keeps insertion order) once their
 * weights add up to more than `maxWeight`.
 */
class RecentValues<T> {
  private readonly entries = new Map<string, { value: T; weight: number }>();
  private weight = 0;
  constructor(private readonly maxWeight: number) {}

  values(): IterableIterator<{ value: T; weight: number }> {
    return this.entries.values();
  }

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: T, weight = 1): void {
    const old = this.entries.get(key);
    if (old) this.weight -= old.weight;
    this.entries.delete(key);
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.weight <= this.maxWeight || oldest === key) break;
      this.entries.delete(oldest);
      this.weight -= entry.weight;
    }
  }
}

/** Characters of a document's text, which its compiled code's size follows (160-330 bytes each, measured). */
const sourceLength = (document: DocumentNode): number => (document.loc ? document.loc.end - document.loc.start : 1_000);

/**
 * Executes operations on `schema` with code compiled per document. A document is compiled the second
 * time it runs (compiling costs more than one execution, so a document sent once, or a stream of
 * new texts, never pays it), and the code of the documents run most recently is kept, up to
 * `maxSourceCharacters` of their texts: a gateway's documents are few and repeated (its clients'
 * pages, its REST entries: 65 documents of 20,000 characters, 3 MiB compiled), so nearly every
 * request runs code compiled before, and no stream of documents can make the kept code weigh more.
 */
export function compiledExecutor(schema: GraphQLSchema, options: { maxSourceCharacters: number }): ExecuteCompiled {
  const compiled = new RecentValues<CompiledQuery | 'graphql-js'>(options.maxSourceCharacters);
  // Keys only (a hash and a name each): the documents that ran once, to compile when they come back.
  const seenOnce = new RecentValues<true>(10_000);
  const endless = inputTypesReachingACycle(schema);
  /** Whether a variable of the operation is of (or holds) an input type that contains itself. */
  const takesEndlessInput = (document: DocumentNode, operationName: string | undefined): boolean =>
    (getOperationAST(document, operationName)?.variableDefinitions ?? []).some((definition) => {
      const type = typeFromAST(schema, definition.type);
      return type !== undefined && endless.has(getNamedType(type).name);
    });

  const compiledFor = (document: DocumentNode, key: string, operationName: string | undefined): CompiledQuery | 'graphql-js' | ExecutionResult => {
    const kept = compiled.get(key);
    if (kept) return kept;
    if (!seenOnce.get(key)) {
      seenOnce.set(key, true);
      return 'graphql-js';
    }
    const made = takesEndlessInput(document, operationName) ? 'graphql-js' : compileQuery(schema, document, operationName, { disablingCapturingStackErrors: true });
    if (made !== 'graphql-js' && !isCompiledQuery(made)) return made;
    compiled.set(key, made, made === 'graphql-js' ? 1 : sourceLength(document));
    return made;
  };

  const run = async ({ document, documentKey, operationName, variableValues, contextValue }: CompiledOperation): Promise<ExecutionResult> => {
    const name = operationName ?? undefined;
    const made = compiledFor(document, `${documentKey}\u0000${name ?? ''}`, name);
    if (made === 'graphql-js') return execute({ schema, document, operationName: name, variableValues, contextValue });
    if (!isCompiledQuery(made)) return withGraphQLErrors(made);
    const result = await made.query(undefined, contextValue, variableValues ?? {});
    // No data at all: the variables were refused before anything ran. graphql-js's refusal says it
    // as every other door does (and points at the variable's definition).
    if (result.data === undefined && result.errors) {
      const operation = getOperationAST(document, name);
      const coerced = operation ? getVariableValues(schema, operation.variableDefinitions ?? [], variableValues ?? {}, { maxErrors: 50 }) : undefined;
      if (coerced?.errors) return { errors: coerced.errors };
    }
    return withGraphQLErrors(result);
  };
  const stats = (): CompiledStats => {
    const counted: CompiledStats = { compiled: 0, onGraphqlJs: 0, sourceCharacters: 0 };
    for (const { value, weight } of compiled.values()) {
      if (value === 'graphql-js') counted.onGraphqlJs += 1;
      else {
        counted.compiled += 1;
        counted.sourceCharacters += weight;
      }
    }
    return counted;
  };
  return Object.assign(run, { stats });
}
