// REST entries for connectors (contract 4.4). Each runs a GraphQL operation; aliases in the
// selection give the contract's snake_case field names, and enum values are spelled back the way
// the contract spells them (Live, Database).
import type {
  RestListConnectorsQuery,
  RestListConnectorsQueryVariables,
  RestReadConnectorQuery,
  RestReadConnectorQueryVariables,
  RestRegisterConnectorMutation,
  RestRegisterConnectorMutationVariables,
  RestStartConnectorRegistrationMutation,
} from '../src/generated/rest-operations.js';
import { JOB_FIELDS } from './jobs.js';
import { withFragment } from './fragments.js';
import { offset, pageVariables, parametersOf, requestOfOperation, toInput, type InputShape } from './input-shape.js';
import { defineEndpoint, EDIT_MODE, isEditMode, pathParam, requestOf } from './table.js';

/** Fields of both list and read results (contract 2.4). */
const COMMON_FIELDS = /* GraphQL */ `
  fragment RestConnectorFields on Connector {
    id: connectorVersionId
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
    live_date: liveAt
  }
`;

/** The list's request: its filters and page size as the operation's variables; the offset is REST's own (a cursor there). */
const LIST: InputShape = {
  type: withFragment(
    /* GraphQL */ `
      query RestListConnectors($filter: ConnectorFilter, $first: Int, $after: String) {
        connectors(filter: $filter, first: $first, after: $after) {
          totalCount
          nodes {
            ...RestConnectorFields
            technology
            runtime
          }
        }
      }
    `,
    COMMON_FIELDS,
  ),
  rename: { filters: 'filter', limit: 'first' },
  own: { offset },
};

const READ_OPERATION = withFragment(
  /* GraphQL */ `
    query RestReadConnector($id: ID!, $status: ConnectorStatus) {
      connector(id: $id, status: $status) {
        ...RestConnectorFields
        ui_spec: uiSpec
      }
    }
  `,
  COMMON_FIELDS,
);

export const connectorEndpoints = [
  defineEndpoint<RestListConnectorsQuery, RestListConnectorsQueryVariables>({
    method: 'POST',
    path: '/v2/connectors/list',
    apiId: 'api.connectors.list',
    summary: 'List connectors (technology and runtime included; no ui_spec)',
    invalidInputCode: 'CONNECTORS_LIST_INPUT_INVALID',
    errorCodes: ['CONNECTOR_NOT_FOUND'],
    ...requestOfOperation('api.connectors.list', LIST, { requestRequired: false }),
    variables: (input) => {
      const { offset } = requestOf<{ offset?: number }>(input);
      const given = toInput<RestListConnectorsQueryVariables>(LIST, input.body.request);
      // Without a limit the REST list returns every connector, up to the configured maximum.
      return pageVariables(given, offset);
    },
    result: (data) => {
      const page = data.connectors;
      return { data: page.nodes, count: page.totalCount };
    },
  }),

  defineEndpoint<RestReadConnectorQuery, RestReadConnectorQueryVariables>({
    method: 'GET',
    path: '/v2/connectors/read/:connector_id',
    apiId: 'api.connectors.read',
    summary: 'Read a connector version with its ui_spec (Live; mode=edit reads the Draft)',
    invalidInputCode: 'CONNECTOR_READ_INVALID_INPUT',
    errorCodes: ['CONNECTOR_NOT_FOUND'],
    // The id's length is the service's rule.
    ...parametersOf(READ_OPERATION, { path: { connector_id: 'id' }, ownQuery: EDIT_MODE }),
    operation: READ_OPERATION,
    // mode=edit reads the Draft version, anything else the Live one.
    variables: (input) => ({ id: pathParam(input, 'connector_id'), status: isEditMode(input) ? 'DRAFT' : 'LIVE' }),
    result: (data) => data.connector,
  }),

  defineEndpoint<RestRegisterConnectorMutation | RestStartConnectorRegistrationMutation, RestRegisterConnectorMutationVariables>({
    method: 'POST',
    path: '/v2/connector/register',
    apiId: 'api.connector.register',
    summary: 'Register a connector from its distribution (multipart/form-data, one file part such as file3); with Prefer: respond-async, as a job: 202 with its status link',
    invalidInputCode: 'FAILED_TO_UPLOAD',
    errorCodes: ['FAILED_TO_REGISTER_CONNECTOR'],
    multipart: true,
    operation: {
      register: /* GraphQL */ `
        mutation RestRegisterConnector($file: Upload!) {
          registerConnector(file: $file) {
            message
          }
        }
      `,
      job: /* GraphQL */ `
        mutation RestStartConnectorRegistration($file: Upload!) {
          startConnectorRegistration(file: $file) {
            ...RestJobFields
          }
        }
        ${JOB_FIELDS}
      `,
    },
    // Prefer: respond-async registers as a job: 202 with its status link.
    chooseOperation: (input) => (input.respondAsync ? 'job' : 'register'),
    startsJob: 'when-asked',
    variables: (input) => ({ file: input.file as RestRegisterConnectorMutationVariables['file'] }),
    result: (data) => ('startConnectorRegistration' in data ? data.startConnectorRegistration : { message: data.registerConnector.message }),
  }),
];
