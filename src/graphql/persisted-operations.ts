// Persisted operations: the allow list of GraphQL operations, generated from graphql/operations/
// into persisted-operations.json (Apollo's persisted-query manifest format, so Apollo Client and
// other tools that read it can send the ids). Any caller may send an operation by its id
// (`extensions.persistedQuery.sha256Hash`) instead of its text; the callers PERSISTED_OPERATIONS_
// REQUIRED_FOR names may run nothing else. A listed operation sent as text is recognised whatever
// its layout (the comparison is on its canonical form). REST calls run the gateway's own fixed
// operations and are not affected.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind, parse, print, validate, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode, type ValidationRule } from 'graphql';
import type { Caller } from '../auth/access.js';
import { projectPath } from '../paths.js';

export const OPERATIONS_DIR = projectPath('graphql', 'operations') + path.sep;
export const DEFAULT_PERSISTED_OPERATIONS_FILE = projectPath('persisted-operations.json');

export interface ManifestOperation {
  /** SHA-256 (hex) of `body`. */
  id: string;
  name: string;
  type: 'query' | 'mutation' | 'subscription';
  /** The operation and the fragments it uses, printed canonically. */
  body: string;
}

export interface PersistedQueryManifest {
  format: 'apollo-persisted-query-manifest';
  version: 1;
  operations: ManifestOperation[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function fragmentsUsedBy(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, used: Map<string, FragmentDefinitionNode>): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = fragments.get(selection.name.value);
      if (fragment && !used.has(fragment.name.value)) {
        used.set(fragment.name.value, fragment);
        fragmentsUsedBy(fragment.selectionSet, fragments, used);
      }
    } else if (selection.selectionSet) {
      fragmentsUsedBy(selection.selectionSet, fragments, used);
    }
  }
}

/**
 * One operation of a document with just the fragments it uses (sorted by name), printed: the same
 * text whatever the layout, comments, definition order or other operations of the document it came from.
 */
export function canonicalOperationText(document: DocumentNode, operation: OperationDefinitionNode): string {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const used = new Map<string, FragmentDefinitionNode>();
  fragmentsUsedBy(operation.selectionSet, fragments, used);
  const sorted = [...used.values()].sort((a, b) => a.name.value.localeCompare(b.name.value));
  return print({ kind: Kind.DOCUMENT, definitions: [operation, ...sorted] });
}

/**
 * Builds the manifest from every `*.graphql` file of `dir`. Each file stands alone (its fragments
 * resolve within it); every operation is named, names are unique across files, and each file passes
 * the schema's validation plus `rules` (the gateway's depth and alias limits). Throws naming every problem.
 */
export function buildManifest(schema: GraphQLSchema, dir = OPERATIONS_DIR, rules: readonly ValidationRule[] = []): PersistedQueryManifest {
  const problems: string[] = [];
  const operations: ManifestOperation[] = [];
  const seen = new Map<string, string>();
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter((file) => file.endsWith('.graphql'))
        .sort()
    : [];
  for (const file of files) {
    let document: DocumentNode;
    try {
      document = parse(readFileSync(path.join(dir, file), 'utf8'));
    } catch (error) {
      problems.push(`${file}: ${(error as Error).message}`);
      continue;
    }
    for (const error of validate(schema, document)) problems.push(`${file}: ${error.message}`);
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const name = definition.name?.value;
      if (!name) {
        problems.push(`${file}: every operation needs a name`);
        continue;
      }
      const previous = seen.get(name);
      if (previous) problems.push(`${file}: operation ${name} is also defined in ${previous}`);
      seen.set(name, file);
      const body = canonicalOperationText(document, definition);
      // The limits count per document, and a listed operation is sent alone: check it alone.
      if (rules.length > 0) for (const error of validate(schema, parse(body), rules)) problems.push(`${file}: ${name}: ${error.message}`);
      operations.push({ id: sha256(body), name, type: definition.operation, body });
    }
  }
  if (problems.length > 0) throw new Error(`graphql/operations is not a valid allow list:\n  - ${problems.join('\n  - ')}`);
  operations.sort((a, b) => a.name.localeCompare(b.name));
  return { format: 'apollo-persisted-query-manifest', version: 1, operations };
}

/** The allow list a gateway runs with. */
export class PersistedOperations {
  private readonly bodies = new Map<string, string>();

  // Canonical text hash → id, so a listed operation sent as text in another layout is recognised.
  private readonly canonical = new Map<string, string>();

  /** `documents`: each operation's body parsed, in the same order (the loader has parsed them to check them). */
  constructor(
    readonly operations: readonly ManifestOperation[],
    documents: readonly DocumentNode[],
  ) {
    for (const [index, operation] of operations.entries()) {
      this.bodies.set(operation.id, operation.body);
      const document = documents[index]!;
      const definition = document.definitions.find((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION)!;
      this.canonical.set(sha256(canonicalOperationText(document, definition)), operation.id);
    }
  }

  get size(): number {
    return this.bodies.size;
  }

  bodyOf(id: string): string | undefined {
    return this.bodies.get(id);
  }

  /** Whether the operation about to run is on the list: by the hash of the text sent, or by its canonical form. */
  includes(queryHash: string | undefined, document: DocumentNode, operation: OperationDefinitionNode): boolean {
    if (queryHash !== undefined && this.bodies.has(queryHash)) return true;
    return this.canonical.has(sha256(canonicalOperationText(document, operation)));
  }
}

/**
 * Reads a manifest and checks it against the schema the gateway serves: a malformed file, an id
 * that is not its body's hash, or an operation the schema no longer accepts stops the start-up.
 */
export function loadPersistedOperations(schema: GraphQLSchema, file = DEFAULT_PERSISTED_OPERATIONS_FILE): PersistedOperations {
  let manifest: Partial<PersistedQueryManifest>;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as Partial<PersistedQueryManifest>;
  } catch (error) {
    throw new Error(`persisted operations file ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (manifest === null || typeof manifest !== 'object' || manifest.format !== 'apollo-persisted-query-manifest' || manifest.version !== 1 || !Array.isArray(manifest.operations)) {
    throw new Error(`persisted operations file ${file} is not an apollo-persisted-query-manifest of version 1 with an operations array`);
  }
  const problems: string[] = [];
  const documents: DocumentNode[] = [];
  for (const [index, operation] of manifest.operations.entries()) {
    const where = `operations[${index}] (${typeof operation?.name === 'string' ? operation.name : 'unnamed'})`;
    if (typeof operation?.body !== 'string' || typeof operation.id !== 'string') {
      problems.push(`${where}: needs string id and body`);
      continue;
    }
    if (sha256(operation.body) !== operation.id) problems.push(`${where}: id is not the SHA-256 of its body`);
    try {
      const document = parse(operation.body);
      documents.push(document);
      const count = document.definitions.filter((node) => node.kind === Kind.OPERATION_DEFINITION).length;
      if (count !== 1) problems.push(`${where}: body must hold exactly one operation, it holds ${count}`);
      for (const error of validate(schema, document)) problems.push(`${where}: ${error.message}`);
    } catch (error) {
      problems.push(`${where}: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new Error(`persisted operations file ${file} does not fit the schema:\n  - ${problems.join('\n  - ')}`);
  return new PersistedOperations(manifest.operations, documents);
}

/** Parses PERSISTED_OPERATIONS_REQUIRED_FOR entries (`*`, `role:<role>`, `caller:<id>`) into a test on the caller. */
export function persistedOnlyFor(selectors: readonly string[]): (caller: Caller | undefined) => boolean {
  if (selectors.includes('*')) return () => true;
  const roles = new Set(selectors.filter((entry) => entry.startsWith('role:')).map((entry) => entry.slice('role:'.length)));
  const callers = new Set(selectors.filter((entry) => entry.startsWith('caller:')).map((entry) => entry.slice('caller:'.length)));
  if (roles.size === 0 && callers.size === 0) return () => false;
  return (caller) => caller !== undefined && (callers.has(caller.id) || caller.roles.some((role) => roles.has(role)));
}
