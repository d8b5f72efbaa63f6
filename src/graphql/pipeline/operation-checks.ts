// The checks an operation passes once its document is known, whichever door it came in by (docs/architecture.md
// "One operation pipeline"), in this order: the operation kind the door runs, the literals' and
// variables' sizes, introspection needs a caller, cost (which the caller's rate limit then pays),
// persisted operations for the callers bound to them. One object holds them; the HTTP door runs it
// from its Apollo plugin, the live door from its gate, the kept-answer door before serving. Doors
// differ only in how they report a refusal.
import { GraphQLError, Kind, OperationTypeNode, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type ValidationRule } from 'graphql';
import { NO_CREDENTIALS_MESSAGE, type RequestAccess } from '../../auth/access.js';
import { asksIntrospection } from '../../auth/introspection.js';
import { GatewayError } from '../../errors.js';
import { withTokenLimitNamed } from '../errors.js';
import { describeJsonLimitViolation, findJsonLimitViolation, type JsonLimits } from '../../validation/json-limits.js';
import { aliasLimitRule, costRefusal, depthLimitRule, literalOverLimits, priceOperation, type CostOptions } from '../limits.js';
import { persistedOnlyFor, type ManifestOperation, type PersistedOperations } from '../persisted-operations.js';

/** The doors that hand a caller's own document to the checks (REST runs the gateway's own operations). */
export type CheckingDoor = 'graphql-http' | 'live';

export interface OperationToCheck {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Readonly<Record<string, unknown>>;
  /** The SHA-256 of the document's text when the door knows it (Apollo's query hash, or the listed id a request named). */
  documentHash: string | undefined;
}

/** Why an operation does not run: its code and kind as the error catalogue shows them, and its HTTP status. */
export class OperationRefusal extends Error {
  override name = 'OperationRefusal';

  constructor(
    readonly code: string,
    message: string,
    readonly kind: string,
    readonly status: number,
    /** The catalogue's error, when the refusal is one (the HTTP door's error formatter reads it). */
    readonly gatewayError?: GatewayError,
  ) {
    super(message);
  }

  static of(error: GatewayError): OperationRefusal {
    return new OperationRefusal(error.code, error.message, error.kind, error.httpStatus, error);
  }

  static invalidDocument(message: string, code = 'GRAPHQL_VALIDATION_FAILED'): OperationRefusal {
    return new OperationRefusal(code, message, 'BAD_REQUEST', 400);
  }
}

export interface OperationChecksOptions {
  schema: GraphQLSchema;
  limits: { maxTokens: number; maxDepth: number; maxAliases: number; maxCost: number; cost: CostOptions };
  jsonLimits: JsonLimits;
  persisted: PersistedOperations;
  /** PERSISTED_OPERATIONS_REQUIRED_FOR */
  persistedRequiredFor: readonly string[];
}

/** Document texts whose parse and validation are remembered for doors that parse themselves (the oldest forgotten first). */
const CHECKED_DOCUMENTS = 500;

const PERSISTED_ONLY_MESSAGE =
  'This caller may run only the operations of the allow list (persisted-operations.json, generated from graphql/operations/): ' +
  'send a listed operation, or its id as extensions.persistedQuery.sha256Hash. The operation sent is not on the list.';

export class OperationChecks {
  /** Depth and aliases: the limits validation adds to GraphQL's own rules (Apollo takes them as its validationRules). */
  readonly limitRules: readonly ValidationRule[];
  /** Whether a caller may run only the operations of the allow list. */
  readonly persistedOnly: (caller: RequestAccess['caller']) => boolean;
  private readonly checkedDocuments = new Map<string, DocumentNode | OperationRefusal[]>();
  private readonly literalProblems = new WeakMap<DocumentNode, string | null>();

  constructor(private readonly options: OperationChecksOptions) {
    this.limitRules = [depthLimitRule(options.limits.maxDepth), aliasLimitRule(options.limits.maxAliases)];
    this.persistedOnly = persistedOnlyFor(options.persistedRequiredFor);
  }

  /** The operations of the allow list, which GraphiQL offers as ready examples. */
  get listedOperations(): readonly ManifestOperation[] {
    return this.options.persisted.operations;
  }

  /** The listed operation's text a request names by id only (extensions.persistedQuery.sha256Hash), if any. */
  listedText(extensions: unknown): string | undefined {
    const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery?.sha256Hash;
    return typeof hash === 'string' ? this.options.persisted.bodyOf(hash) : undefined;
  }

  /**
   * The document parsed and validated, within GRAPHQL_MAX_TOKENS, depth and aliases, or why not; for
   * a door that parses itself (Apollo keeps its own store, with the same rules). Each text is checked
   * once: dashboards send the same few texts many times, and the answer does not depend on the caller.
   */
  documentOf(text: string): DocumentNode | OperationRefusal[] {
    const known = this.checkedDocuments.get(text);
    if (known) return known;
    let checked: DocumentNode | OperationRefusal[];
    try {
      checked = parse(text, { maxTokens: this.options.limits.maxTokens });
      const errors = validate(this.options.schema, checked, [...specifiedRules, ...this.limitRules]);
      if (errors.length > 0) checked = errors.map((error) => OperationRefusal.invalidDocument(error.message));
    } catch (error) {
      checked = [OperationRefusal.invalidDocument(withTokenLimitNamed((error as Error).message), 'GRAPHQL_PARSE_FAILED')];
    }
    if (this.checkedDocuments.size >= CHECKED_DOCUMENTS) this.checkedDocuments.delete(this.checkedDocuments.keys().next().value!);
    this.checkedDocuments.set(text, checked);
    return checked;
  }

  /**
   * Runs the checks on an operation about to run for `access` at `door`; its cost, which the
   * caller's rate limit pays at its first root field admitted. Throws an OperationRefusal.
   */
  check(access: RequestAccess, { document, operation, variables, documentHash }: OperationToCheck, door: CheckingDoor): number {
    refuseOtherKinds(operation, door);
    const { caller, failure } = access.authentication;
    // Credentials that do not hold refuse the operation (401), whatever it asks: a public field, only
    // __typename. A caller that sent none is anonymous, and the fields' admission decides.
    if (failure) throw OperationRefusal.of(failure);
    const sizeProblem = this.sizeProblem(document, variables);
    if (sizeProblem !== undefined) throw OperationRefusal.of(new GatewayError('INVALID_INPUT', sizeProblem));
    if (!caller && asksIntrospection(operation.selectionSet, document)) throw OperationRefusal.of(new GatewayError('UNAUTHENTICATED', NO_CREDENTIALS_MESSAGE));
    const priced = priceOperation(this.options.schema, document, operation, variables, this.options.limits.cost);
    // Advice on what to ask instead fits a query; a subscription's selection is what it watches.
    if (priced.cost > this.options.limits.maxCost) throw OperationRefusal.invalidDocument(costRefusal(priced, this.options.limits.maxCost, door === 'graphql-http'));
    if (this.persistedOnly(access.caller) && !this.options.persisted.includes(documentHash, document, operation)) {
      throw OperationRefusal.of(new GatewayError('PERSISTED_OPERATION_REQUIRED', PERSISTED_ONLY_MESSAGE));
    }
    access.priceDocument(priced.cost);
    return priced.cost;
  }

  /**
   * Admits a caller to a kept answer as executing it would: refused when bound to persisted
   * operations, else the links' check, its cost and each root field's admission (rate limit included).
   * Throws (or rejects) on a refusal, which the door leaves to execution to report.
   */
  admitToKeptAnswer(access: RequestAccess, kept: { apiIds: readonly (readonly string[])[]; linkedApiIds: readonly (readonly string[])[]; cost: number | undefined }): void | Promise<void> {
    if (this.persistedOnly(access.caller)) throw new Error('persisted operations only');
    for (const ids of kept.linkedApiIds) access.authorize(ids);
    // Served or executed, a document pays the same: its cost, at its first root field admitted.
    if (kept.cost !== undefined) access.priceDocument(kept.cost);
    return access.admitEach(kept.apiIds);
  }

  /** The first variable or literal over JSON_MAX_STRING_LENGTH / JSON_MAX_ARRAY_LENGTH, described. */
  private sizeProblem(document: DocumentNode, variables: Readonly<Record<string, unknown>>): string | undefined {
    const violation = findJsonLimitViolation(variables, this.options.jsonLimits);
    if (violation) return describeJsonLimitViolation(violation, '/variables');
    // One parsed document per distinct text (Apollo's store, or documentOf): its literals are walked once.
    let found = this.literalProblems.get(document);
    if (found === undefined) this.literalProblems.set(document, (found = literalOverLimits(document, this.options.jsonLimits) ?? null));
    return found ?? undefined;
  }
}

function refuseOtherKinds(operation: OperationDefinitionNode, door: CheckingDoor): void {
  const isSubscription = operation.operation === OperationTypeNode.SUBSCRIPTION;
  // Apollo would execute a subscription as a query and fail inside; it has doors of its own.
  if (door === 'graphql-http' && isSubscription) {
    throw OperationRefusal.invalidDocument('A subscription is served over WebSocket (graphql-transport-ws) on /graphql or Server-Sent Events on /graphql/stream, not over a plain HTTP request.');
  }
  if (door === 'live' && !isSubscription) {
    throw OperationRefusal.invalidDocument(
      `only subscriptions run on this transport; send ${operation.operation === OperationTypeNode.QUERY ? 'queries' : 'mutations'} to POST /graphql`,
      'BAD_REQUEST',
    );
  }
}

/** The operation a document runs: the one named, or its only one. */
export function chosenOperation(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode | OperationRefusal {
  const operations = document.definitions.filter((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((node) => node.name?.value === operationName);
  if (operation) return operation;
  return OperationRefusal.invalidDocument(
    operationName === undefined ? 'the document holds several operations: name one (operationName)' : `the document has no operation named ${operationName}`,
    'BAD_REQUEST',
  );
}

/** A refusal as the HTTP door (Apollo) reports it: the catalogue's error when it is one, its status. */
export function asApolloError(refusal: OperationRefusal): GraphQLError {
  const http = { status: refusal.status };
  return refusal.gatewayError
    ? new GraphQLError(refusal.message, { originalError: refusal.gatewayError, extensions: { http } })
    : new GraphQLError(refusal.message, { extensions: { code: refusal.code, http } });
}
