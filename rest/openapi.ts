// The OpenAPI 3.1 document of the REST layer, generated from the REST table: each entry's path,
// query and body schemas (JSON Schema 2020-12, which OpenAPI 3.1 takes as it is), the envelope it
// answers with, and the error codes it can answer, with their HTTP statuses from the catalogue.
// Credentials (security schemes) and the failures every protected entry can give (401, 403, 429,
// 503, 500) are shared components, referenced by each operation.
// Never edited by hand: `npm run generate:docs` writes the committed copy (openapi.json), and a
// test fails when that copy differs from what the table generates.
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { NO_CREDENTIALS_MESSAGE } from '../src/auth/access.js';
import { PUBLIC_API_ID } from '../src/auth/field-api-ids.js';
import { ERROR_CATALOGUE, GENERIC_FAILURE_MESSAGE, GatewayError, type ErrorCode, type ErrorKind } from '../src/errors.js';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../src/platform/database/errors.js';
import { requestTimeoutMessage } from '../src/http/use-request-timeout.js';
import { CREATED_ID, examplesOf, type RestExample } from './examples.js';
import type { ErrorPresentation } from '../src/http/envelope.js';
import { operationTexts, presentationOf, type RestEndpoint } from './table.js';
import type { JsonSchema } from './validation.js';

export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths: Record<string, Record<string, OpenApiOperation>> };

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security?: Record<string, string[]>[];
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, unknown>;
  'x-api-id': string;
  'x-error-codes': ErrorCode[];
}

/** Codes the access check (src/auth/access.ts) answers for any entry that is not public, before it runs. */
const ACCESS_CODES: readonly ErrorCode[] = ['UNAUTHENTICATED', 'FORBIDDEN'];

/** Codes any entry can answer, whatever it does: the rate limit, an outage, the request timeout, a bug. */
const CROSS_CUTTING: readonly ErrorCode[] = ['RATE_LIMITED', 'INTERNAL_SERVER_ERROR', 'DATABASE_UNAVAILABLE', 'REQUEST_TIMEOUT'];

/**
 * Every code the entry can answer, its own bad-input code first, in a stable order. A public entry
 * too refuses credentials that do not hold (401) and a cross-site session cookie (403).
 */
export function errorCodesOf(endpoint: RestEndpoint): ErrorCode[] {
  return [...new Set<ErrorCode>([endpoint.invalidInputCode, ...endpoint.errorCodes, ...ACCESS_CODES, ...CROSS_CUTTING])];
}

/** Whether the access check asks for credentials and a permission (every entry but a public one). */
function isProtected(endpoint: RestEndpoint): boolean {
  return endpoint.apiId !== PUBLIC_API_ID;
}

/** How the entry shows a code: its own presentation (ingestion's lookups: 404 with BAD_REQUEST), else the catalogue's. */
function shownOn(endpoint: RestEndpoint, code: ErrorCode): ErrorPresentation {
  return presentationOf(endpoint, new GatewayError(code, ''));
}

/** `/v2/template/read/:template_id` -> `/v2/template/read/{template_id}` */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Tag names of the reference, by the path's domain segment; an unknown segment is its own tag. */
const TAGS: Record<string, string> = {
  template: 'query templates',
  datasets: 'datasets',
  data: 'ingestion',
  connectors: 'connectors',
  connector: 'connectors',
  files: 'files',
  silence: 'alerting: silences',
  metric: 'alerting: metric aliases',
  notifications: 'alerting: notification channels',
};

function tagOf(endpoint: RestEndpoint): string {
  const path = endpoint.path.split('/').filter(Boolean);
  // /v2/<domain>/..., /alerts/v1/<domain>/...
  const domain = (path[0] === 'v2' ? path[1] : path[2]) ?? 'other';
  return TAGS[domain] ?? domain;
}

/** What a reader must put in place of the placeholder id (Try it out with it answers 404). */
const CREATED_ID_NOTE = 'The example is a placeholder: use the `id` that the matching create operation answered.';

/** `example` of a parameter, when the operation's first example gives it a value. */
function withExample(parameter: Record<string, unknown>, value: string | undefined): Record<string, unknown> {
  if (value === undefined) return parameter;
  return { ...parameter, example: value, ...(value === CREATED_ID ? { description: CREATED_ID_NOTE } : {}) };
}

function parameters(endpoint: RestEndpoint, example: RestExample | undefined): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const pathNames = [...endpoint.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
  const pathProps = (endpoint.pathSchema?.properties ?? {}) as Record<string, JsonSchema>;
  for (const name of pathNames) out.push(withExample({ name, in: 'path', required: true, schema: pathProps[name] ?? { type: 'string' } }, example?.path?.[name]));
  const query = endpoint.querySchema;
  if (query) {
    const required = new Set((query.required ?? []) as string[]);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      out.push(withExample({ name, in: 'query', required: required.has(name), schema }, example?.query?.[name]));
    }
  }
  if (endpoint.startsJob === 'when-asked') out.push(PREFER_RESPOND_ASYNC);
  return out;
}

/** The header that makes a route that answers at once run its work as a job instead (RFC 7240). */
const PREFER_RESPOND_ASYNC = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description:
    '`respond-async` runs the work as a job: 202 Accepted with the job (its `id`, `state`, `progress`) and `Location: /v2/jobs/{job_id}`, the status route to follow. Without it the route answers at once.',
  schema: { type: 'string', examples: ['respond-async'] },
  example: 'respond-async',
};

/** The 202 answer of a route that starts a job. */
function jobStartedResponse(endpoint: RestEndpoint): Record<string, unknown> {
  return {
    description: `A job started: the envelope with \`id\` ${endpoint.apiId} and the job as \`result\`; follow \`Location\` (GET /v2/jobs/{job_id}) to its end and its result link.`,
    headers: {
      Location: { description: 'The status route of the job: /v2/jobs/{job_id}.', schema: { type: 'string' } },
      ...(endpoint.startsJob === 'when-asked'
        ? { 'Preference-Applied': { description: "`respond-async`: the request's Prefer header was honoured.", schema: { type: 'string', const: 'respond-async' } } }
        : {}),
    },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/SuccessEnvelope' } } },
  };
}

/** The request bodies of the examples: `example` for one, named `examples` for several (Swagger UI offers a choice). */
function bodyExamples(examples: readonly RestExample[]): Record<string, unknown> {
  const bodies = examples.filter((example) => example.body !== undefined);
  if (bodies.length === 0) return {};
  if (bodies.length === 1) return { example: bodies[0]!.body };
  return { examples: Object.fromEntries(bodies.map((example, index) => [example.name ?? `example ${index + 1}`, { summary: example.name, value: example.body }])) };
}

function requestBody(endpoint: RestEndpoint, examples: readonly RestExample[]): Record<string, unknown> | undefined {
  if (endpoint.multipart) {
    return {
      required: true,
      description: 'multipart/form-data with exactly one file part (any part name).',
      content: {
        'multipart/form-data': {
          schema: { type: 'object', properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } }, required: ['file'] },
        },
      },
    };
  }
  if (!endpoint.bodySchema) return undefined;
  const required = ((endpoint.bodySchema.required ?? []) as string[]).length > 0;
  const schema = endpoint.documentedServiceRules ? { ...endpoint.bodySchema, ...endpoint.documentedServiceRules } : endpoint.bodySchema;
  return { required, content: { 'application/json': { schema, ...bodyExamples(examples) } } };
}

/** Messages of the failure examples, for the codes every entry shares (the gateway's own wording). */
const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  UNAUTHENTICATED: NO_CREDENTIALS_MESSAGE,
  FORBIDDEN:
    'Access denied. The caller does not have permission to perform this action (api.datasets.import). ' + 'The following roles have access to this action: dataset_creator, dataset_manager, admin.',
  RATE_LIMITED: 'Too many calls from this caller; retry after 2 s.',
  DATABASE_UNAVAILABLE: DATABASE_UNAVAILABLE_MESSAGE,
  REQUEST_TIMEOUT: requestTimeoutMessage(60_000),
  INTERNAL_SERVER_ERROR: GENERIC_FAILURE_MESSAGE,
};

/** The API id the shared responses' examples name (an operation's own failures carry its id). */
const EXAMPLE_API_ID = 'api.datasets.import';

/** A failure envelope as the gateway writes it, with fixed time and ids (the document is committed). */
function exampleEnvelope(apiId: string, code: ErrorCode, kind: ErrorKind, message: string): Record<string, unknown> {
  return {
    id: apiId,
    ver: 'v2',
    ts: '2026-01-01T12:00:00+00:00',
    params: { status: 'FAILED', msgid: '4a7f2d2e-9c1b-4e7a-8f4c-2b1d6c3e5a90', resmsgid: '0b6d8e7c-3f2a-4d1e-9b8c-7a6f5e4d3c2b' },
    responseCode: kind,
    error: { code, message, trace: '' },
    result: {},
  };
}

const RETRY_AFTER_HEADER = {
  description: 'Seconds to wait before the caller’s budget has room for another call.',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};

/**
 * The failure response for `codes` (all of one HTTP status): the failure envelope narrowed to their
 * responseCode (`kindOf` each, the catalogue's by default) and error.code, an example per code whose
 * wording is known, and Retry-After with RATE_LIMITED.
 */
function failureResponse(codes: readonly ErrorCode[], description: string, apiId = EXAMPLE_API_ID, kindOf = (code: ErrorCode): ErrorKind => ERROR_CATALOGUE[code]): Record<string, unknown> {
  const examples = Object.fromEntries(
    codes.flatMap((code) => {
      const message = EXAMPLE_MESSAGES[code];
      return message === undefined ? [] : [[code, { summary: code, value: exampleEnvelope(apiId, code, kindOf(code), message) }]];
    }),
  );
  return {
    description,
    ...(codes.includes('RATE_LIMITED') ? { headers: { 'Retry-After': RETRY_AFTER_HEADER } } : {}),
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/FailureEnvelope' },
            {
              type: 'object',
              properties: {
                responseCode: { enum: [...new Set(codes.map(kindOf))] },
                error: { type: 'object', properties: { code: { enum: [...codes] } } },
              },
            },
          ],
        },
        ...(Object.keys(examples).length > 0 ? { examples } : {}),
      },
    },
  };
}

/**
 * Failures that read the same for every entry that can give them (access, rate limit, outage,
 * timeout, a bug): one `components.responses` entry each, which operations reference by `$ref`.
 */
const SHARED_RESPONSES: Record<string, { codes: readonly ErrorCode[]; description: string }> = {
  Unauthenticated: {
    codes: ['UNAUTHENTICATED'],
    description:
      'No credentials, or credentials that do not hold (a malformed, expired or forged token, a token without the roles claim, ' +
      'a tampered or ended session, an unknown or revoked API key). Never with AUTH_MODE=none.',
  },
  Forbidden: {
    codes: ['FORBIDDEN'],
    description:
      "The caller's roles do not grant the operation's API id (config/permissions.json, or PERMISSIONS_FILE), " +
      'or a cross-site request (an Origin of another site) carried the session cookie. Never with AUTH_MODE=none.',
  },
  RateLimited: {
    codes: ['RATE_LIMITED'],
    description:
      'Too many calls from this caller (RATE_LIMIT_RPS and RATE_LIMIT_BURST; ingestion, api.data.in, has a budget of its own: ' + 'RATE_LIMIT_INGEST_RPS). Retry after the seconds Retry-After gives.',
  },
  ServiceUnavailable: {
    codes: ['DATABASE_UNAVAILABLE', 'REQUEST_TIMEOUT'],
    description:
      'DATABASE_UNAVAILABLE: the database does not answer (try again shortly; GET /readyz says when it is back). ' +
      'REQUEST_TIMEOUT: the request ran longer than REQUEST_TIMEOUT_MS and was answered without its result; ' +
      'it was not cancelled, so read before retrying a change.',
  },
  InternalServerError: {
    codes: ['INTERNAL_SERVER_ERROR'],
    description: 'An unexpected error: logged with the request id (x-request-id), answered with a generic message.',
  },
};

/** The shared response whose codes are exactly `codes`, if there is one. */
function sharedResponseFor(codes: readonly ErrorCode[]): string | undefined {
  const key = [...codes].sort().join(',');
  return Object.keys(SHARED_RESPONSES).find((name) => [...SHARED_RESPONSES[name]!.codes].sort().join(',') === key);
}

/** The success envelope, with the entry's `result` schema where it declares one. */
function successSchema(endpoint: RestEndpoint): JsonSchema {
  const envelope = { $ref: '#/components/schemas/SuccessEnvelope' };
  return endpoint.resultSchema ? { allOf: [envelope, { properties: { result: endpoint.resultSchema } }] } : envelope;
}

function responses(endpoint: RestEndpoint, codes: ErrorCode[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    '200': endpoint.contentType
      ? {
          description: `Success: the document as ${endpoint.contentType}, without an envelope (failures keep the failure envelope).`,
          content: { [endpoint.contentType]: { schema: { type: 'string' } } },
        }
      : typeof endpoint.bareResult === 'function'
        ? {
            description: `Success: depending on the request, the result as a JSON body without an envelope, or the envelope with \`id\` ${endpoint.apiId} and the operation's \`result\` (failures keep the failure envelope).`,
            content: { 'application/json': { schema: { oneOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }, { $ref: '#/components/schemas/SuccessEnvelope' }] } } },
          }
        : endpoint.bareResult
          ? {
              description: 'Success: the rows as a JSON array, without an envelope (failures keep the failure envelope).',
              content: { 'application/json': { schema: { type: 'array', items: { type: 'object' } } } },
            }
          : {
              description: `Success: the envelope with \`id\` ${endpoint.apiId} and the operation's \`result\`.`,
              content: { 'application/json': { schema: successSchema(endpoint) } },
            },
  };
  if (endpoint.responseHeaders) {
    const headers = Object.entries(endpoint.responseHeaders).map(([name, header]): [string, unknown] => [name, { description: header.description, schema: header.schema }]);
    out['200'] = { ...(out['200'] as Record<string, unknown>), headers: Object.fromEntries(headers) };
  }
  if (endpoint.startsJob) out['202'] = jobStartedResponse(endpoint);
  // A route that always starts a job never answers 200.
  if (endpoint.startsJob === true) delete out['200'];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = shownOn(endpoint, code).httpStatus;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const kindOf = (code: ErrorCode) => shownOn(endpoint, code).kind;
  for (const [status, group] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    const shared = sharedResponseFor(group);
    out[String(status)] = shared ? { $ref: `#/components/responses/${shared}` } : failureResponse(group, `Failure envelope; error.code is one of ${group.join(', ')}.`, endpoint.apiId, kindOf);
  }
  return out;
}

/** The credentials src/auth/authenticate.ts accepts; which ones apply depends on AUTH_MODE. */
const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'AUTH_MODE=jwt: `Authorization: Bearer <jwt>`, signed with JWT_SECRET (HS256) or the key of JWT_PUBLIC_KEY_FILE or JWT_JWKS_FILE ' +
      '(RS256, ES256). Issuer (JWT_ISSUER), audience (JWT_AUDIENCE) and expiry are checked, and the roles claim (JWT_ROLES_CLAIM) is required.',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'connect.sid',
    description:
      'AUTH_MODE=session: the signed session cookie (named by SESSION_COOKIE_NAME, connect.sid by default), checked against the session store. ' +
      'A cross-site request (an Origin of another site) cannot use it.',
  },
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'AUTH_MODE=jwt or AUTH_MODE=session: an API key for machine clients (scripts/api-key.ts creates one; only its hash is stored).',
  },
} as const;

/** Any one of the credentials will do (OpenAPI: alternatives are separate requirement objects). */
const SECURITY: Record<string, string[]>[] = Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] }));

/**
 * Links to the GraphQL operation(s) the entry runs, opened in GraphiQL on this gateway: the REST
 * operation's twin, to read its fields or run it with variables of one's own. Parentheses are
 * escaped too, so the link stays whole inside a Markdown link.
 */
export function graphqlTwinLinks(endpoint: Pick<RestEndpoint, 'operation'>): { name: string; href: string }[] {
  return operationTexts(endpoint).map((text) => {
    const operation = parse(text).definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
    return { name: operation?.name?.value ?? 'operation', href: `/graphql?query=${encodeURIComponent(text.trim()).replace(/\(/g, '%28').replace(/\)/g, '%29')}` };
  });
}

function description(endpoint: RestEndpoint): string {
  const twins = `GraphQL twin, in GraphiQL (when GRAPHIQL_ENABLED): ${graphqlTwinLinks(endpoint)
    .map(({ name, href }) => `[${name}](${href})`)
    .join(', ')}.`;
  if (!isProtected(endpoint)) return `API id \`${endpoint.apiId}\`: public, no credentials needed.\n\n${twins}`;
  return (
    `API id \`${endpoint.apiId}\`: the caller needs a role granted this id (config/permissions.json, or the file PERMISSIONS_FILE names). ` +
    'Credentials: any one of the security schemes that AUTH_MODE takes (jwt: bearer token or API key; session: the session cookie or API key; none: no credentials).' +
    `\n\n${twins}`
  );
}

const COMPONENTS = {
  securitySchemes: SECURITY_SCHEMES,
  responses: Object.fromEntries(Object.entries(SHARED_RESPONSES).map(([name, shared]) => [name, failureResponse(shared.codes, shared.description)])),
  schemas: {
    EnvelopeParams: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['SUCCESS', 'FAILED'] },
        msgid: { type: 'string', description: "The request's params.msgid, when it had one." },
        resmsgid: { type: 'string', format: 'uuid' },
      },
      required: ['status', 'resmsgid'],
    },
    SuccessEnvelope: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The API id, e.g. api.datasets.read.' },
        ver: { const: 'v2' },
        ts: { type: 'string', description: 'ISO 8601 local time with offset.' },
        params: { $ref: '#/components/schemas/EnvelopeParams' },
        responseCode: { const: 'OK' },
        result: { description: "The operation's result." },
      },
      required: ['id', 'ver', 'ts', 'params', 'responseCode', 'result'],
    },
    FailureEnvelope: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The API id, or `api` when no route matched.' },
        ver: { const: 'v2' },
        ts: { type: 'string' },
        params: { $ref: '#/components/schemas/EnvelopeParams' },
        responseCode: { type: 'string', description: 'The error kind (BAD_REQUEST, NOT_FOUND, ...).' },
        error: {
          type: 'object',
          properties: {
            code: { type: 'string', description: "A code of the gateway's error catalogue." },
            message: { type: 'string' },
            trace: { const: '' },
          },
          required: ['code', 'message', 'trace'],
        },
        result: { type: 'object', maxProperties: 0 },
      },
      required: ['id', 'ver', 'ts', 'params', 'responseCode', 'error', 'result'],
    },
  },
};

export interface OpenApiOptions {
  version: string;
  /** When the examples are dated from (silences must lie ahead); now by default. */
  examplesAt?: Date;
}

export function buildOpenApiDocument(endpoints: readonly RestEndpoint[], options: OpenApiOptions): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const endpoint of endpoints) {
    const path = openApiPath(endpoint.path);
    const codes = errorCodesOf(endpoint);
    const tag = tagOf(endpoint);
    tags.add(tag);
    const examples = examplesOf(endpoint, options.examplesAt);
    const params = parameters(endpoint, examples[0]);
    const body = requestBody(endpoint, examples);
    const operation: OpenApiOperation = {
      operationId: endpoint.apiId,
      summary: endpoint.summary,
      description: description(endpoint),
      tags: [tag],
      ...(isProtected(endpoint) ? { security: SECURITY } : {}),
      ...(params.length > 0 ? { parameters: params } : {}),
      ...(body ? { requestBody: body } : {}),
      responses: responses(endpoint, codes),
      'x-api-id': endpoint.apiId,
      'x-error-codes': codes,
    };
    paths[path] = { ...paths[path], [endpoint.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Data Platform Gateway — REST API',
      version: options.version,
      description:
        'The REST compatibility layer (v2 envelope). Every endpoint runs a GraphQL operation of the same gateway ' +
        '(POST /graphql), which is the API of record. Generated from the REST table (rest/endpoints.ts); do not edit.\n\n' +
        'Authentication depends on AUTH_MODE. jwt: a bearer token (bearerAuth) or an API key (apiKey); session: the session cookie ' +
        '(sessionCookie) or an API key; none (allowed only on a loopback address): no credentials at all, every caller acts as SYSTEM. ' +
        "Any one of the schemes an operation lists is enough. Permissions are granted by API id (each operation's x-api-id) to roles, " +
        'in config/permissions.json or the file PERMISSIONS_FILE names.\n\n' +
        'A path of this document asked with a method it does not list is answered 405 METHOD_NOT_ALLOWED in the failure envelope, ' +
        'with the methods it takes in the Allow header. A refusal for passing a limit names the setting behind it (e.g. REQUEST_BODY_LIMIT). ' +
        'Every JSON answer ends with a newline. A query result (template runs, /v2/data/query, the SQL endpoint, the Druid form of ' +
        '/v2/data/metrics; SQL or a native query, e.g. a series of more buckets than the bound) cut at its row bound ' +
        '(TEMPLATE_QUERY_MAX_ROWS) carries the header x-result-truncated: <the bound>; the envelope is unchanged.',
    },
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: COMPONENTS,
  };
}
