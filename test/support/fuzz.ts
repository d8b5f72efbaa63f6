// The fuzz engine shared by test/http/fuzz.test.ts (a few hundred requests in CI) and bench/fuzz.ts
// (ten thousand and more). Requests come from each REST entry's own schemas (bodySchema,
// pathSchema, querySchema), from each GraphQL root field's argument types and from the variables of
// each persisted operation (graphql/operations/, sent by id), then get broken by
// hostile generators: wrong types, huge values, odd unicode, prototype keys, deep nesting, bodies
// that are not JSON. Every answer must be a 4xx (or an upstream 502/503 with its code) in the
// contract's failure envelope, or a success; never a 500, never a hang, never a crash.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  getNamedType,
  Kind,
  parse,
  typeFromAST,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { RestEndpoint } from '../../rest/table.js';
import { DEFAULT_PERSISTED_OPERATIONS_FILE, type PersistedQueryManifest } from '../../src/graphql/persisted-operations.js';

type Json = unknown;
type Schema = Record<string, any>;

/** Ids that exist in the fuzzed gateway, so that generated requests also reach real records. */
export const KNOWN_IDS = ['fuzz-live', 'fuzz-draft', 'fuzz_template', 'postgres-connector-1.0.0'];

const HUGE = 'x'.repeat(70_000);

/** Values no schema asks for. */
export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    0,
    -1,
    1e308,
    -1e308,
    2 ** 53 + 1,
    5e-324,
    '',
    ' ',
    '\u0000',
    'null',
    '{{DATASET}}',
    "' OR 1=1 --",
    '"; DROP TABLE events; --',
    '../../../../etc/passwd',
    '\u202e\u0000💥\ud800',
    'Ω≈ç√∫˜µ≤≥÷ 田中さんにあげて下さい 🏳️‍🌈 ​',
    HUGE,
    [],
    {},
    [[[[]]]],
    JSON.parse('{"__proto__": {"polluted": "yes"}}'),
    JSON.parse('{"constructor": {"prototype": {"polluted": "yes"}}}'),
    { toString: 'x', valueOf: {}, hasOwnProperty: 1 },
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 50, max: 400 }).map((depth) => nest(depth)),
);

function nest(depth: number): Json {
  let value: Json = 1;
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Bodies that are not (reasonable) JSON at all, sent as raw text. */
const rawBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '{"a":}',
    'null',
    '[]',
    '"text"',
    '12',
    '\u0000',
    '{"id": "a", "id": "b"}',
    `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
    `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
    `{"request": "${'y'.repeat(2 * 1024 * 1024)}"}`,
  ),
  fc.string({ maxLength: 200 }),
);

const stringArbitrary = (schema: Schema): fc.Arbitrary<string> => {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = Math.max(minLength, Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, 60));
  const options: fc.Arbitrary<string>[] = [fc.string({ minLength, maxLength }), fc.constantFrom(...KNOWN_IDS)];
  if (schema.format === 'date-time') options.push(fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()));
  if (schema.format === 'uuid') options.push(fc.uuid());
  if (schema.format === 'email') options.push(fc.emailAddress());
  if (schema.format === 'uri' || schema.format === 'url') options.push(fc.webUrl());
  return fc.oneof(...options);
};

/** Values that (mostly) fit a JSON schema: the shapes a real client sends, to reach deep code. */
export function fromSchema(schema: Schema | undefined, depth = 0): fc.Arbitrary<Json> {
  if (!schema || typeof schema !== 'object' || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as Json[]));
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) return fc.oneof(...alternatives.map((alt) => fromSchema({ ...schema, oneOf: undefined, anyOf: undefined, ...alt }, depth + 1)));
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ['object'] : [];
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<Json> => {
      switch (type) {
        case 'object': {
          const properties = (schema.properties ?? {}) as Record<string, Schema>;
          const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
          const keys = Object.keys(properties);
          if (keys.length === 0) return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
          return fc.record(Object.fromEntries(keys.map((key) => [key, fromSchema(properties[key], depth + 1)])), { requiredKeys: keys.filter((key) => required.has(key)) });
        }
        case 'array': {
          const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
          const maxLength = Math.max(minLength, Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 4, 6));
          return fc.array(fromSchema(schema.items as Schema, depth + 1), { minLength, maxLength });
        }
        case 'string':
          return stringArbitrary(schema);
        case 'integer':
          return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000 });
        case 'number':
          return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        default:
          return fc.jsonValue({ maxDepth: 1 });
      }
    }),
  );
}

/** Every path (list of keys) into the objects and arrays of a value. */
function pathsOf(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (prefix.length > 8) return out;
  if (Array.isArray(value)) value.forEach((item, i) => pathsOf(item, [...prefix, i], out));
  else if (value && typeof value === 'object') for (const key of Object.keys(value)) pathsOf((value as Record<string, Json>)[key], [...prefix, key], out);
  return out;
}

type Mutation = 'replace' | 'delete' | 'proto' | 'extra';

/** The value with one place broken: replaced by a hostile value, removed, or given odd keys. */
function mutate(value: Json, choice: number, how: Mutation, hostile: Json): Json {
  const copy = structuredClone<Json>(value);
  const paths = pathsOf(copy);
  const path = paths[choice % paths.length]!;
  if (path.length === 0) return how === 'replace' ? hostile : copy;
  let parent = copy as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  const last = path.at(-1)!;
  const target = parent[last];
  switch (how) {
    case 'replace':
      parent[last] = hostile;
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case 'proto':
      if (target && typeof target === 'object' && !Array.isArray(target)) {
        Object.defineProperty(target, '__proto__', { value: { polluted: 'yes' }, enumerable: true, configurable: true, writable: true });
        (target as Record<string, Json>)['constructor'] = { prototype: { polluted: 'yes' } };
      } else parent[last] = JSON.parse('{"__proto__": {"polluted": "yes"}}');
      break;
    case 'extra':
      if (target && typeof target === 'object' && !Array.isArray(target)) (target as Record<string, Json>)[`unexpected_${choice % 7}`] = hostile;
      else parent[last] = [target, hostile];
      break;
  }
  return copy;
}

function mutated(valid: fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  return fc
    .tuple(valid, fc.nat(), fc.constantFrom<Mutation>('replace', 'replace', 'delete', 'proto', 'extra'), hostileValue)
    .map(([value, choice, how, hostile]) => mutate(value, choice, how, hostile));
}

/** Values for a path segment, encoded as a client would (or, sometimes, not at all). */
const pathSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN_IDS) },
  { weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9_.-]{1,40}$/) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeSafely) },
  { weight: 1, arbitrary: fc.constantFrom('%2e%2e%2f%2e%2e', '..', '%00', '%', '%E0%A4%A', 'a'.repeat(5000), '%2F', ' ', '💥', '%u0000') },
);

function encodeSafely(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return 'x';
  }
}

export type RestBody = { kind: 'json'; value: Json } | { kind: 'raw'; text: string; contentType: string } | { kind: 'file'; bytes: Buffer; filename: string; part: string } | { kind: 'none' };

export interface RestRequest {
  endpoint: RestEndpoint;
  url: string;
  body: RestBody;
}

function queryString(value: Json): string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return '';
  const params = new URLSearchParams();
  for (const [key, item] of Object.entries(value)) {
    for (const one of Array.isArray(item) ? item : [item]) params.append(key, typeof one === 'string' ? one : (JSON.stringify(one) ?? ''));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Requests for one REST entry. */
export function restRequest(endpoint: RestEndpoint): fc.Arbitrary<RestRequest> {
  const segments = (endpoint.path.match(/:\w+/g) ?? []).length;
  const path = fc.array(pathSegment, { minLength: segments, maxLength: segments }).map((values) => {
    let i = 0;
    return endpoint.path.replace(/:\w+/g, () => values[i++]!);
  });
  const query = endpoint.querySchema
    ? fc.oneof(
        fromSchema(endpoint.querySchema),
        mutated(fromSchema(endpoint.querySchema)),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 })), { maxKeys: 3 }),
      )
    : fc.constant(undefined);
  let body: fc.Arbitrary<RestBody>;
  if (endpoint.method === 'GET' || endpoint.method === 'DELETE') {
    body = fc.constant({ kind: 'none' });
  } else if (endpoint.multipart) {
    body = fc.oneof(
      fc.record({
        kind: fc.constant('file' as const),
        bytes: fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
        filename: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom('../../x.tar.gz', 'c.zip', 'c.tar.gz', '\u0000.jar')),
        part: fc.constantFrom('file', 'file3', 'x'),
      }),
      hostileValue.map((value) => ({ kind: 'json' as const, value })),
    );
  } else {
    const valid = fromSchema(endpoint.bodySchema);
    body = fc.oneof(
      { weight: 4, arbitrary: valid.map((value) => ({ kind: 'json' as const, value })) },
      { weight: 5, arbitrary: mutated(valid).map((value) => ({ kind: 'json' as const, value })) },
      { weight: 1, arbitrary: hostileValue.map((value) => ({ kind: 'json' as const, value })) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(rawBody, fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1'))
          .map(([text, contentType]) => ({ kind: 'raw' as const, text, contentType })),
      },
    );
  }
  return fc.record({ path, query, body }).map(({ path: p, query: q, body: b }) => ({ endpoint, url: `${p}${queryString(q)}`, body: b }));
}

// ---------------------------------------------------------------------------------------------
// GraphQL

export interface GraphQLRequest {
  field: string;
  /** The document; absent when the operation is sent by its persisted id. */
  query?: string;
  persistedId?: string;
  variables: Json;
}

function inputValue(type: GraphQLInputType, depth: number): fc.Arbitrary<Json> {
  if (isNonNullType(type)) return inputValue(type.ofType, depth);
  const nullable = (inner: fc.Arbitrary<Json>) => fc.option(inner, { nil: null, freq: 6 });
  if (isListType(type)) return nullable(fc.array(inputValue(type.ofType, depth + 1), { maxLength: depth > 2 ? 1 : 4 }));
  if (isEnumType(type)) return nullable(fc.constantFrom(...type.getValues().map((value) => value.name)));
  if (isInputObjectType(type)) {
    if (depth > 5) return fc.constant(null);
    const fields = Object.values(type.getFields());
    return nullable(
      fc.record(Object.fromEntries(fields.map((field) => [field.name, inputValue(field.type, depth + 1)])), {
        requiredKeys: fields.filter((field) => isNonNullType(field.type)).map((field) => field.name),
      }),
    );
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int':
        return nullable(fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.integer()));
      case 'Float':
        return nullable(fc.double({ noNaN: true, noDefaultInfinity: true }));
      case 'Boolean':
        return nullable(fc.boolean());
      case 'DateTime':
        return nullable(
          fc.oneof(
            fc.date({ noInvalidDate: true, min: new Date('1970-01-01'), max: new Date('2200-01-01') }).map((d) => d.toISOString()),
            fc.string({ maxLength: 30 }),
          ),
        );
      case 'JSON':
        return fc.oneof(fc.jsonValue({ maxDepth: 3 }), hostileValue);
      default:
        return nullable(fc.oneof(fc.constantFrom(...KNOWN_IDS), fc.string({ maxLength: 40 })));
    }
  }
  return fc.constant(null);
}

function selectionOf(field: GraphQLField<unknown, unknown>): string {
  return isCompositeType(getNamedType(field.type)) ? ' { __typename }' : '';
}

/** Requests for every root field (file uploads excepted: REST fuzzes those). */
export function graphqlRequests(schema: GraphQLSchema): fc.Arbitrary<GraphQLRequest> {
  const options: fc.Arbitrary<GraphQLRequest>[] = [];
  for (const [operation, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.some((arg) => getNamedType(arg.type).name === 'Upload')) continue;
      const definitions = field.args.map((arg) => `$${arg.name}: ${arg.type.toString()}`);
      const args = field.args.map((arg) => `${arg.name}: $${arg.name}`);
      const query = `${operation} Fuzz${definitions.length ? `(${definitions.join(', ')})` : ''} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${selectionOf(field)} }`;
      const valid = fc.record(Object.fromEntries(field.args.map((arg) => [arg.name, inputValue(arg.type, 0)])), { requiredKeys: [] });
      const variables = fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: mutated(valid) }, { weight: 1, arbitrary: hostileValue });
      options.push(variables.map((vars) => ({ field: `${type.name}.${field.name}`, query, variables: vars })));
    }
  }
  options.push(...persistedOperationRequests(schema));
  const garbage = fc
    .oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom('{', '{ __schema { types { name } } }', `{ ${'version '.repeat(3000)} }`, 'query { version } mutation { deleteTemplate(id: "fuzz") { id } }', '{ a: b }'),
    )
    .map((query) => ({ field: '(document)', query, variables: {} }));
  return fc.oneof({ weight: 20, arbitrary: fc.oneof(...options) }, { weight: 1, arbitrary: garbage });
}

/** The dashboard's operations (persisted-operations.json, file uploads excepted), sent by id with generated variables. */
function persistedOperationRequests(schema: GraphQLSchema): fc.Arbitrary<GraphQLRequest>[] {
  const manifest = JSON.parse(readFileSync(DEFAULT_PERSISTED_OPERATIONS_FILE, 'utf8')) as PersistedQueryManifest;
  const requests: fc.Arbitrary<GraphQLRequest>[] = [];
  for (const operation of manifest.operations) {
    const definition = parse(operation.body).definitions.find((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION)!;
    const variables = (definition.variableDefinitions ?? []).map((variable) => ({ name: variable.variable.name.value, type: typeFromAST(schema, variable.type as never) as GraphQLInputType }));
    if (variables.some((variable) => getNamedType(variable.type).name === 'Upload')) continue;
    const valid = fc.record(Object.fromEntries(variables.map((variable) => [variable.name, inputValue(variable.type, 0)])), { requiredKeys: [] });
    const generated = fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: mutated(valid) }, { weight: 1, arbitrary: hostileValue });
    requests.push(generated.map((vars) => ({ field: `persisted ${operation.name}`, persistedId: operation.id, variables: vars })));
  }
  return requests;
}

// ---------------------------------------------------------------------------------------------
// Checking the answers

export interface Answer {
  /** x-request-id, to find the gateway's log lines of a failure. */
  requestId?: string;
  status: number;
  contentType: string;
  body: any;
}

/** Upstream failures that are the right answer when a system behind the gateway is down or refuses. */
export const UPSTREAM_CODES = new Set([
  'NOTIFICATION_FAILED',
  'ALERT_MANAGER_FAILED',
  'DATABASE_UNAVAILABLE',
  'EVENT_BUS_UNAVAILABLE',
  'DATA_OUT_QUERY_TIMEOUT',
  'ERR_BAD_REQUEST',
  'DATA_METRICS_UNAVAILABLE',
]);

/** Problems with a REST answer; empty when it is a success or a well-formed refusal. */
export function restProblems(answer: Answer, endpoint: RestEndpoint): string[] {
  const problems: string[] = [];
  const body = answer.body;
  // An entry answering another media type (the Prometheus rule file's YAML) does so on success only.
  if (endpoint.contentType && answer.status < 300) return answer.contentType.includes(endpoint.contentType) ? [] : [`a ${endpoint.contentType} entry answered ${answer.contentType}`];
  if (!answer.contentType.includes('application/json') || !body || typeof body !== 'object') return [`answer is not a JSON object (status ${answer.status}, ${answer.contentType})`];
  // An entry answering without an envelope (rows for BI tools, Prometheus's JSON) does so on success only.
  if (endpoint.bareResult && answer.status < 300) return body.params === undefined ? [] : ['a bare-result entry answered a 2xx in an envelope'];
  if (body.id !== endpoint.apiId && body.id !== 'api') problems.push(`envelope id ${JSON.stringify(body.id)}`);
  if (answer.status < 300) {
    if (body.params?.status !== 'SUCCESS' || body.responseCode !== 'OK') problems.push('a 2xx without the success envelope');
    return problems;
  }
  const error = body.error;
  if (body.params?.status !== 'FAILED' || typeof body.responseCode !== 'string') problems.push('failure without params.status FAILED and a responseCode');
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || error.trace !== '') problems.push('failure without error {code, message, trace: ""}');
  // No 500 for a caller's input: an unreadable connector archive too is 400 FAILED_TO_UPLOAD (issue 51).
  if (answer.status === 500) problems.push(`HTTP 500 ${error?.code}: ${error?.message}`);
  else if (answer.status > 500 && !UPSTREAM_CODES.has(error?.code)) problems.push(`HTTP ${answer.status} ${error?.code}`);
  else if (answer.status < 400) problems.push(`unexpected status ${answer.status}`);
  return problems;
}

export function graphqlProblems(answer: Answer): string[] {
  const body = answer.body;
  if (!answer.contentType.includes('application/json') || !body || typeof body !== 'object') return [`answer is not a JSON object (status ${answer.status})`];
  const problems: string[] = [];
  if (answer.status >= 500 && !(body.errors ?? []).every((error: any) => UPSTREAM_CODES.has(error?.extensions?.code))) problems.push(`HTTP ${answer.status}`);
  if (!('data' in body) && !Array.isArray(body.errors)) problems.push('neither data nor errors');
  for (const error of body.errors ?? []) {
    if (error?.extensions?.code === 'INTERNAL_SERVER_ERROR') problems.push(`INTERNAL_SERVER_ERROR: ${error.message}`);
    if (typeof error?.message !== 'string') problems.push('an error without a message');
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Running

export interface FuzzOptions {
  /** Base URL of a running gateway (AUTH_MODE=none, loopback). */
  url: string;
  endpoints: readonly RestEndpoint[];
  schema: GraphQLSchema;
  runs: number;
  seed: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Share of the runs that go to GraphQL (the rest to REST). */
  graphqlShare?: number;
  /** Longest an answer may take before it counts as a hang. */
  timeoutMs?: number;
  /**
   * Runs once the requests are generated, just before the first is sent (e.g. seeding). Generating
   * ten thousand requests blocks the event loop for seconds, long enough for the server to close an
   * idle keep-alive connection the client would then reuse (a client-side ECONNRESET, not a finding).
   */
  before?: () => Promise<void>;
}

export interface FuzzFailure {
  request: string;
  status: number | 'no answer';
  problems: string[];
}

export interface FuzzReport {
  runs: number;
  rest: number;
  graphql: number;
  seed: number;
  ms: number;
  statuses: Record<string, number>;
  /** error codes of refusals, REST and GraphQL together */
  codes: Record<string, number>;
  failures: FuzzFailure[];
  prototypePolluted: boolean;
}

function clip(text: string, length = 400): string {
  return text.length > length ? `${text.slice(0, length)}… (${text.length} characters)` : text;
}

function describeRequest(request: RestRequest | GraphQLRequest): string {
  if ('endpoint' in request) {
    const body = request.body;
    const shown =
      body.kind === 'json'
        ? JSON.stringify(body.value)
        : body.kind === 'raw'
          ? `raw(${body.contentType}) ${JSON.stringify(body.text)}`
          : body.kind === 'file'
            ? `file ${JSON.stringify(body.filename)} (${body.bytes.length} B)`
            : '';
    return clip(`${request.endpoint.method} ${request.url} ${shown ?? ''}`);
  }
  return clip(`GraphQL ${request.field} ${JSON.stringify(request.variables)}`);
}

async function sendRest(url: string, request: RestRequest, signal: AbortSignal): Promise<Answer> {
  const init: RequestInit = { method: request.endpoint.method, signal };
  const body = request.body;
  if (body.kind === 'json') {
    init.headers = { 'content-type': 'application/json' };
    init.body = JSON.stringify(body.value) ?? 'null';
  } else if (body.kind === 'raw') {
    init.headers = { 'content-type': body.contentType };
    init.body = body.text;
  } else if (body.kind === 'file') {
    const form = new FormData();
    form.append(body.part, new Blob([new Uint8Array(body.bytes)]), body.filename);
    init.body = form;
  }
  const response = await fetch(`${url}${request.url}`, init);
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: parsed, requestId: response.headers.get('x-request-id') ?? undefined };
}

async function sendGraphQL(url: string, request: GraphQLRequest, signal: AbortSignal): Promise<Answer> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    signal,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      request.persistedId ? { extensions: { persistedQuery: { version: 1, sha256Hash: request.persistedId } }, variables: request.variables } : { query: request.query, variables: request.variables },
    ),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: parsed };
}

/** fetch's failure when the connection was reset or closed under it before an answer came. */
function resetBeforeAnswer(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } }).cause?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET';
}

export async function runFuzz(options: FuzzOptions, progress?: (done: number) => void): Promise<FuzzReport> {
  const started = Date.now();
  const graphqlRuns = Math.round(options.runs * (options.graphqlShare ?? 0.3));
  const restRuns = options.runs - graphqlRuns;
  const restArbitrary = fc.oneof(...options.endpoints.map((endpoint) => restRequest(endpoint)));
  const requests: (RestRequest | GraphQLRequest)[] = [
    ...fc.sample(restArbitrary, { numRuns: restRuns, seed: options.seed }),
    ...fc.sample(graphqlRequests(options.schema), { numRuns: graphqlRuns, seed: options.seed + 1 }),
  ];
  // Interleave the two kinds, deterministically.
  requests.sort((a, b) => hash(describeRequest(a)) - hash(describeRequest(b)));
  await options.before?.();

  const report: FuzzReport = { runs: requests.length, rest: restRuns, graphql: graphqlRuns, seed: options.seed, ms: 0, statuses: {}, codes: {}, failures: [], prototypePolluted: false };
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++]!;
      const signal = AbortSignal.timeout(options.timeoutMs ?? 30_000);
      let answer: Answer;
      const send = () => ('endpoint' in request ? sendRest(options.url, request, signal) : sendGraphQL(options.url, request, signal));
      try {
        // A keep-alive connection the gateway closed while this process was held up elsewhere (a loaded
        // machine) resets when reused, before any answer: sent once more; a second reset is a finding.
        answer = await send().catch((error: unknown) => {
          if (!resetBeforeAnswer(error)) throw error;
          return send();
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        report.failures.push({ request: describeRequest(request), status: 'no answer', problems: [[(error as Error).message, cause?.code, cause?.message].filter(Boolean).join(': ')] });
        continue;
      } finally {
        done += 1;
        progress?.(done);
      }
      report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1;
      const codes: unknown[] = 'endpoint' in request ? [answer.body?.error?.code] : (answer.body?.errors ?? []).map((error: any) => error?.extensions?.code);
      for (const code of codes) if (typeof code === 'string') report.codes[code] = (report.codes[code] ?? 0) + 1;
      const problems = 'endpoint' in request ? restProblems(answer, request.endpoint) : graphqlProblems(answer);
      if (problems.length > 0)
        report.failures.push({ request: describeRequest(request), status: answer.status, problems: answer.requestId ? [...problems, `request id ${answer.requestId}`] : problems });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  report.prototypePolluted = ({} as Record<string, unknown>).polluted !== undefined;
  report.ms = Date.now() - started;
  return report;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A few lines for a human: totals, statuses, the commonest refusal codes, the first failures. */
export function formatReport(report: FuzzReport): string {
  const codes = Object.entries(report.codes)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  const lines = [
    `fuzz: ${report.runs} requests (${report.rest} REST, ${report.graphql} GraphQL) in ${(report.ms / 1000).toFixed(1)} s, seed ${report.seed}`,
    `  statuses: ${Object.entries(report.statuses)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ')}`,
    `  commonest codes: ${codes}`,
    `  failures: ${report.failures.length}; 500s: ${report.statuses['500'] ?? 0}; prototype polluted: ${report.prototypePolluted}`,
    ...report.failures.slice(0, 10).map((failure) => `  ✗ ${failure.status} ${failure.problems.join('; ')} ← ${failure.request}`),
  ];
  return lines.join('\n');
}

/** Records for the fuzzed requests to find (KNOWN_IDS): a Live and a Draft dataset, a template. */
export async function seedFuzzData(url: string): Promise<void> {
  const { definition } = await import('./datasets.js');
  const post = async (path: string, id: string, request: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id, ver: 'v2', ts: new Date().toISOString(), params: { msgid: 'seed' }, request }),
    });
    if (response.status !== 200) throw new Error(`seeding ${path} failed with ${response.status}: ${await response.text()}`);
  };
  for (const id of ['fuzz-live', 'fuzz-draft']) await post('/v2/datasets/import', 'api.datasets.import', definition(id));
  await post('/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: 'fuzz-live', status: 'ReadyToPublish' });
  await post('/v2/datasets/status-transition', 'api.datasets.status-transition', { dataset_id: 'fuzz-live', status: 'Live' });
  await post('/v2/template/create', 'api.query.template.create', {
    template_name: 'Fuzz Template',
    query_type: 'sql',
    query: 'SELECT * FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}',
  });
}
