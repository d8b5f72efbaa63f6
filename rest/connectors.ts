// REST entries for connectors (contract 4.4). Each runs a GraphQL operation; aliases in the
// selection give the contract's snake_case field names, and enum values are spelled back the way
// the contract spells them (Live, Database).
import { cursorForOffset } from '../src/graphql/cursor.js';
import { defineEndpoint, type RestInput } from './table.js';
import { envelopeSchema } from './validation.js';

const STATUS_ENUM: Record<string, string> = { Draft: 'DRAFT', InValidation: 'IN_VALIDATION', Live: 'LIVE', Retired: 'RETIRED' };
const CATEGORY_ENUM: Record<string, string> = { Database: 'DATABASE', File: 'FILE', Stream: 'STREAM' };
const STATUS_NAMES = Object.fromEntries(Object.entries(STATUS_ENUM).map(([name, value]) => [value, name]));
const CATEGORY_NAMES = Object.fromEntries(Object.entries(CATEGORY_ENUM).map(([name, value]) => [value, name]));

/** Fields of both list and read results (contract 2.4). */
const COMMON_FIELDS = `
  id
  connector_id: connectorId
  name
  type
  category
  version
  description
  licence
  owner
  iconurl: iconUrl
  status
  created_by: createdBy
  updated_by: updatedBy
  created_date: createdAt
  updated_date: updatedAt
  live_date: liveAt`;

type ConnectorData = Record<string, unknown> & { status: string; category: string };

function restConnector(connector: ConnectorData) {
  return { ...connector, status: STATUS_NAMES[connector.status], category: CATEGORY_NAMES[connector.category] };
}

function request(input: RestInput): Record<string, any> {
  return (input.body.request ?? {}) as Record<string, any>;
}

export const connectorEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/v2/connectors/list',
    apiId: 'api.connectors.list',
    resultFrom: ['connector_registry'],
    summary: 'List connectors (technology and runtime included; no ui_spec)',
    invalidInputCode: 'CONNECTORS_LIST_INPUT_INVALID',
    bodySchema: envelopeSchema(
      'api.connectors.list',
      {
        type: 'object',
        properties: {
          filters: {
            type: 'object',
            properties: {
              status: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'string', enum: Object.keys(STATUS_ENUM) } },
              category: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'string', enum: Object.keys(CATEGORY_ENUM) } },
            },
            additionalProperties: false,
          },
          limit: { type: 'integer', minimum: 0 },
          offset: { type: 'integer', minimum: 0 },
        },
        additionalProperties: false,
      },
      { requestRequired: false },
    ),
    operation: `query RestListConnectors($filter: ConnectorFilter, $first: Int, $after: String) {
      connectors(filter: $filter, first: $first, after: $after) { totalCount nodes { ${COMMON_FIELDS} technology runtime } }
    }`,
    variables: (input) => {
      const r = request(input);
      const statuses = r.filters?.status as string[] | undefined;
      const categories = r.filters?.category as string[] | undefined;
      return {
        filter: { status: statuses?.map((status) => STATUS_ENUM[status]) ?? null, category: categories?.map((category) => CATEGORY_ENUM[category]) ?? null },
        // Without a limit the REST list returns every connector, up to the configured maximum.
        first: r.limit ?? null,
        after: r.offset ? cursorForOffset(r.offset - 1) : null,
      };
    },
    result: (data) => {
      const page = data.connectors as { totalCount: number; nodes: ConnectorData[] };
      return { data: page.nodes.map(restConnector), count: page.totalCount };
    },
  }),

  defineEndpoint({
    method: 'GET',
    path: '/v2/connectors/read/:connector_id',
    apiId: 'api.connectors.read',
    resultFrom: ['connector_registry'],
    summary: 'Read a connector version with its ui_spec (Live; mode=edit reads the Draft)',
    invalidInputCode: 'CONNECTOR_READ_INVALID_INPUT',
    pathSchema: { type: 'object', properties: { connector_id: { type: 'string', minLength: 1, maxLength: 200 } }, required: ['connector_id'] },
    querySchema: { type: 'object', properties: { mode: { type: 'string', maxLength: 20 } } },
    operation: `query RestReadConnector($id: ID!, $status: ConnectorStatus) { connector(id: $id, status: $status) { ${COMMON_FIELDS} ui_spec: uiSpec } }`,
    // As the original: mode=edit (any case) reads the Draft version, anything else the Live one.
    variables: (input) => ({
      id: input.path.connector_id,
      status: String(input.query.mode ?? '').toLowerCase() === 'edit' ? 'DRAFT' : 'LIVE',
    }),
    result: (data) => restConnector(data.connector as ConnectorData),
  }),

  defineEndpoint({
    method: 'POST',
    path: '/v2/connector/register',
    apiId: 'api.connector.register',
    summary: 'Register a connector from its distribution (multipart/form-data, one file part such as file3)',
    invalidInputCode: 'FAILED_TO_UPLOAD',
    multipart: true,
    operation: `mutation RestRegisterConnector($file: Upload!) { registerConnector(file: $file) { message } }`,
    variables: (input) => ({ file: input.file }),
    result: (data) => ({ message: (data.registerConnector as { message: string }).message }),
  }),
];
