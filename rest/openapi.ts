// The OpenAPI 3.1 document of the REST layer, generated from the REST table: each entry's path,
// query and body schemas (JSON Schema 2020-12, which OpenAPI 3.1 takes as it is), the envelope it
// answers with, and the error codes it can answer, with their HTTP statuses from the catalogue.
// Never edited by hand: `npm run generate:docs` writes the committed copy (openapi.json), and a
// test fails when that copy differs from what the table generates.
import { ERROR_CATALOGUE, GatewayError, type ErrorCode } from '../src/errors.js';
import type { RestEndpoint } from './table.js';
import type { JsonSchema } from './validation.js';

export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths: Record<string, Record<string, OpenApiOperation>> };

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  tags: string[];
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, unknown>;
  'x-api-id': string;
  'x-error-codes': ErrorCode[];
}

/** Codes any entry can answer, whatever it does. */
const CROSS_CUTTING: readonly ErrorCode[] = ['INTERNAL_SERVER_ERROR', 'DATABASE_UNAVAILABLE'];

/**
 * Codes an entry's domain can answer besides its invalidInputCode, used when the entry does not list
 * its own (`errorCodes` in the table). Keyed by API-id prefix; the longest matching prefix wins.
 */
const DOMAIN_ERRORS: Record<string, readonly ErrorCode[]> = {
  'api.query.template.': ['QUERY_TEMPLATE_INVALID', 'QUERY_TEMPLATE_INVALID_INPUT', 'QUERY_TEMPLATE_ALREADY_EXISTS', 'QUERY_TEMPLATE_NOT_EXISTS'],
  'api.query.template.query': [
    'QUERY_TEMPLATE_INVALID_INPUT',
    'QUERY_TEMPLATE_NOT_EXISTS',
    'DATA_OUT_INVALID_INPUT',
    'DATA_OUT_INVALID_DATE_RANGE',
    'DATA_OUT_SOURCE_NOT_FOUND',
    'DATASET_NOT_FOUND',
    'DATA_OUT_QUERY_FAILED',
    'DATA_OUT_QUERY_TIMEOUT',
  ],
  'api.datasets.': [
    'DATASET_NOT_FOUND',
    'DATASET_NOT_EXISTS',
    'DATASET_INVALID_FIELDS',
    'DATASET_EXISTS',
    'DATASET_ALREADY_EXISTS',
    'DATASET_CONFIGS_INVALID',
    'DATASET_IN_USE',
  ],
  'api.datasets.read': ['DATASET_NOT_FOUND', 'DATASET_INVALID_FIELDS'],
  'api.datasets.list': [],
  'api.datasets.dataschema': [],
  'api.datasets.status-transition': [
    'DATASET_NOT_FOUND',
    'DATASET_LIVE_FAILURE',
    'DATASET_READYTOPUBLISH_FAILURE',
    'DATASET_RETIRE_FAILURE',
    'DATASET_IN_USE',
    'DEPENDENT_MASTER_DATA_NOT_LIVE',
    'SELF_REFERENCING_MASTER_DATA',
    'DATASET_CONFIGS_INVALID',
  ],
  'api.datasets.import': ['DATASET_CONFIGS_INVALID', 'DATASET_EXISTS', 'DATASET_ALREADY_EXISTS'],
  'api.datasets.copy': ['DATASET_NOT_FOUND', 'DATASET_NOT_EXISTS', 'DATASET_ALREADY_EXISTS', 'DATASET_EXISTS'],
  'api.data.in': ['DATASET_NOT_FOUND', 'TOPIC_NOT_FOUND', 'EVENT_BUS_UNAVAILABLE'],
  'api.connectors.': ['CONNECTOR_NOT_FOUND'],
  'api.connector.register': ['FAILED_TO_REGISTER_CONNECTOR'],
  'api.files.': ['FILES_URL_GENERATION_LIMIT_EXCEED', 'FILES_GENERATE_URL_FAILURE'],
  'api.alert.silence.': ['SILENCE_NOT_FOUND', 'SILENCE_CONFLICT', 'ALERT_MANAGER_FAILED'],
  'api.metric.': ['METRIC_ALIAS_ALREADY_EXISTS', 'METRIC_ALIAS_NOT_FOUND'],
  'api.alert.notification.': ['NOTIFICATION_CHANNEL_ALREADY_EXISTS', 'NOTIFICATION_CHANNEL_NOT_FOUND', 'ALERT_MANAGER_FAILED', 'NOTIFICATION_FAILED'],
};

/** Every code the entry can answer, its own bad-input code first, in a stable order. */
export function errorCodesOf(endpoint: RestEndpoint): ErrorCode[] {
  const declared = endpoint.errorCodes;
  const prefix = Object.keys(DOMAIN_ERRORS)
    .filter((key) => endpoint.apiId === key || (key.endsWith('.') && endpoint.apiId.startsWith(key)))
    .sort((a, b) => b.length - a.length)[0];
  const domain = declared ?? (prefix ? DOMAIN_ERRORS[prefix]! : []);
  return [...new Set<ErrorCode>([endpoint.invalidInputCode, ...domain, ...CROSS_CUTTING])];
}

/** HTTP status of a code, overrides included (e.g. TOPIC_NOT_FOUND is a 404 with responseCode BAD_REQUEST). */
function statusOf(code: ErrorCode): number {
  return new GatewayError(code, '').httpStatus;
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

function parameters(endpoint: RestEndpoint): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const pathNames = [...endpoint.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
  const pathProps = (endpoint.pathSchema?.properties ?? {}) as Record<string, JsonSchema>;
  for (const name of pathNames) out.push({ name, in: 'path', required: true, schema: pathProps[name] ?? { type: 'string' } });
  const query = endpoint.querySchema;
  if (query) {
    const required = new Set((query.required ?? []) as string[]);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      out.push({ name, in: 'query', required: required.has(name), schema });
    }
  }
  return out;
}

function requestBody(endpoint: RestEndpoint): Record<string, unknown> | undefined {
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
  return { required, content: { 'application/json': { schema: endpoint.bodySchema } } };
}

function responses(endpoint: RestEndpoint, codes: ErrorCode[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    '200': {
      description: `Success: the envelope with \`id\` ${endpoint.apiId} and the operation's \`result\`.`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/SuccessEnvelope' } } },
    },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  for (const [status, group] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: `Failure envelope; error.code is one of ${group.join(', ')}.`,
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/FailureEnvelope' },
              {
                type: 'object',
                properties: {
                  responseCode: { enum: [...new Set(group.map((code) => ERROR_CATALOGUE[code]))] },
                  error: { type: 'object', properties: { code: { enum: group } } },
                },
              },
            ],
          },
        },
      },
    };
  }
  return out;
}

const COMPONENTS = {
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
}

export function buildOpenApiDocument(endpoints: readonly RestEndpoint[], options: OpenApiOptions): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const endpoint of endpoints) {
    const path = openApiPath(endpoint.path);
    const codes = errorCodesOf(endpoint);
    const tag = tagOf(endpoint);
    tags.add(tag);
    const params = parameters(endpoint);
    const body = requestBody(endpoint);
    const operation: OpenApiOperation = {
      operationId: endpoint.apiId,
      summary: endpoint.summary,
      tags: [tag],
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
        '(POST /graphql), which is the API of record. Generated from the REST table (rest/endpoints.ts); do not edit.',
    },
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: COMPONENTS,
  };
}
