// REST entries for query templates (contract 4.3). Each runs a GraphQL operation; aliases in the
// selection give the contract's snake_case field names.
import type {
  RestCreateTemplateMutation,
  RestCreateTemplateMutationVariables,
  RestDeleteTemplateMutation,
  RestDeleteTemplateMutationVariables,
  RestListTemplatesQuery,
  RestListTemplatesQueryVariables,
  RestReadTemplateQuery,
  RestReadTemplateQueryVariables,
  RestRunTemplateQuery,
  RestRunTemplateQueryVariables,
  RestUpdateTemplateMutation,
  RestUpdateTemplateMutationVariables,
} from '../src/generated/rest-operations.js';
import { withFragment } from './fragments.js';
import { ENUMS } from './enum-names.js';
import { defineEndpoint, pathParam, requestOf } from './table.js';
import { enumValueOf, inputSchema, offset, pageVariables, requestOfOperation, toInput, type InputShape } from './input-shape.js';
import { envelopeSchema, type JsonSchema } from './validation.js';

const TEMPLATE_FIELDS = /* GraphQL */ `
  fragment RestTemplateFields on QueryTemplate {
    template_id: templateId
    template_name: name
    query
    query_type: queryType
    created_by: createdBy
    updated_by: updatedBy
    created_date: createdAt
    updated_date: updatedAt
  }
`;

// A template id's length is the service's rule (src/modules/templates/rules.ts), as are the name's and the query's.
const templateIdPath: JsonSchema = { type: 'object', properties: { template_id: { type: 'string' } }, required: ['template_id'] };

/** Create and update: the contract's names of a template input's fields. */
function templateShape(type: 'CreateQueryTemplateInput' | 'UpdateQueryTemplateInput'): InputShape {
  return {
    type,
    rename: { template_name: 'name', query_type: 'queryType', query: 'query' },
    // A json query may come as an object (the entry makes it JSON text); a sql query is text.
    own: { query: { type: ['string', 'object'] } },
    also: { if: { properties: { query_type: { const: 'sql' } }, required: ['query_type'] }, then: { properties: { query: { type: 'string' } } } },
  };
}
const CREATE = templateShape('CreateQueryTemplateInput');
const UPDATE = templateShape('UpdateQueryTemplateInput');

const RUN: InputShape = {
  type: 'RunTemplateInput',
  rename: { startdate: 'startDate', enddate: 'endDate', dataset: 'dataset', aggregationLevel: 'aggregationLevel', limit: 'limit' },
  // GraphQL takes a day when it is left out; the contract's REST call names it.
  required: ['aggregationLevel'],
};

/** Query text for GraphQL: objects become JSON text (the schema lets only text and objects through). */
function queryText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const SORT_FIELDS: Record<string, keyof typeof ENUMS.QueryTemplateSortField> = {
  created_date: 'CREATED_DATE',
  updated_date: 'UPDATED_DATE',
  template_name: 'TEMPLATE_NAME',
  template_id: 'TEMPLATE_ID',
};

const sortField = { type: 'string', enum: Object.keys(SORT_FIELDS) };
const sortOrder = { type: 'string', enum: ['asc', 'desc', 'ASC', 'DESC'] };

/**
 * The list's request: its filter and page size as the operation's variables. Its sort keys are
 * REST's own spellings (the contract's sortBy, the original's [field, direction] pairs); how many
 * the list takes is its rule (src/platform/lists), as is the page size.
 */
const LIST: InputShape = {
  type: withFragment(
    /* GraphQL */ `
      query RestListTemplates($filter: QueryTemplateFilter, $sort: [QueryTemplateSort!], $first: Int, $after: String) {
        templates(filter: $filter, sort: $sort, first: $first, after: $after) {
          nodes {
            ...RestTemplateFields
          }
        }
      }
    `,
    TEMPLATE_FIELDS,
  ),
  rename: { filters: { field: 'filter', rename: { query_type: 'queryType' } }, limit: 'first' },
  own: {
    sortBy: { type: 'array', items: { type: 'object', properties: { field: sortField, order: sortOrder }, required: ['field'], additionalProperties: false } },
    order: { type: 'array', items: { type: 'array', prefixItems: [sortField, sortOrder], minItems: 2, maxItems: 2, items: false } },
    offset,
  },
};

export const templateEndpoints = [
  defineEndpoint<RestCreateTemplateMutation, RestCreateTemplateMutationVariables>({
    method: 'POST',
    path: '/v2/template/create',
    apiId: 'api.query.template.create',
    summary: 'Create a query template',
    invalidInputCode: 'QUERY_TEMPLATE_INVALID',
    errorCodes: ['QUERY_TEMPLATE_ALREADY_EXISTS'],
    bodySchema: envelopeSchema('api.query.template.create', inputSchema(CREATE), { requestRequired: true }),
    operation: /* GraphQL */ `
      mutation RestCreateTemplate($input: CreateQueryTemplateInput!) {
        createTemplate(input: $input) {
          message
          template {
            id: templateId
            name
          }
        }
      }
    `,
    variables: (input) => {
      const given = toInput<RestCreateTemplateMutationVariables['input']>(CREATE, input.body.request);
      return { input: { ...given, query: queryText(given.query) } };
    },
    result: (data) => {
      const created = data.createTemplate;
      return { template_id: created.template.id, template_name: created.template.name, message: created.message };
    },
  }),

  defineEndpoint<RestReadTemplateQuery, RestReadTemplateQueryVariables>({
    method: 'GET',
    path: '/v2/template/read/:template_id',
    apiId: 'api.query.template.read',
    summary: 'Read a query template',
    invalidInputCode: 'QUERY_TEMPLATE_INVALID_INPUT',
    errorCodes: ['QUERY_TEMPLATE_NOT_EXISTS'],
    pathSchema: templateIdPath,
    operation: withFragment(
      /* GraphQL */ `
        query RestReadTemplate($id: ID!) {
          template(id: $id) {
            ...RestTemplateFields
          }
        }
      `,
      TEMPLATE_FIELDS,
    ),
    variables: (input) => ({ id: pathParam(input, 'template_id') }),
    result: (data) => data.template,
  }),

  defineEndpoint<RestListTemplatesQuery, RestListTemplatesQueryVariables>({
    method: 'POST',
    path: '/v2/template/list',
    apiId: 'api.query.template.list',
    summary: 'List query templates',
    invalidInputCode: 'QUERY_TEMPLATE_INVALID_INPUT',
    errorCodes: [],
    ...requestOfOperation('api.query.template.list', LIST, { requestRequired: false }),
    variables: (input) => {
      const r = requestOf<{ sortBy?: { field: string; order?: string }[]; order?: [string, string][]; offset?: number }>(input);
      const given = toInput<RestListTemplatesQueryVariables>(LIST, input.body.request);
      const keys = r.sortBy ?? r.order?.map(([field, order]) => ({ field, order })) ?? [];
      // Without a limit the REST list returns every template, up to the configured maximum.
      return { ...pageVariables(given, r.offset), sort: keys.map((key) => ({ field: SORT_FIELDS[key.field]!, order: enumValueOf('SortOrder', (key.order ?? 'asc').toLowerCase()) })) };
    },
    result: (data) => data.templates.nodes,
  }),

  defineEndpoint<RestUpdateTemplateMutation, RestUpdateTemplateMutationVariables>({
    method: 'PATCH',
    path: '/v2/template/update/:template_id',
    apiId: 'api.query.template.update',
    summary: 'Update a query template',
    invalidInputCode: 'QUERY_TEMPLATE_INVALID_INPUT',
    errorCodes: ['QUERY_TEMPLATE_INVALID', 'QUERY_TEMPLATE_NOT_EXISTS', 'QUERY_TEMPLATE_ALREADY_EXISTS'],
    pathSchema: templateIdPath,
    bodySchema: envelopeSchema('api.query.template.update', inputSchema(UPDATE), { requestRequired: true }),
    operation: /* GraphQL */ `
      mutation RestUpdateTemplate($id: ID!, $input: UpdateQueryTemplateInput!) {
        updateTemplate(id: $id, input: $input) {
          message
          template {
            id: templateId
          }
        }
      }
    `,
    variables: (input) => {
      const given = toInput<RestUpdateTemplateMutationVariables['input']>(UPDATE, input.body.request);
      return { id: pathParam(input, 'template_id'), input: { ...given, query: given.query === undefined ? null : queryText(given.query) } };
    },
    result: (data) => {
      const updated = data.updateTemplate;
      return { message: updated.message, templateId: updated.template.id };
    },
  }),

  defineEndpoint<RestRunTemplateQuery, RestRunTemplateQueryVariables>({
    method: 'POST',
    path: '/v2/template/query/:template_id',
    apiId: 'api.query.template.query',
    summary: 'Run a query template against a Live dataset',
    invalidInputCode: 'QUERY_TEMPLATE_INVALID_INPUT',
    errorCodes: [
      'QUERY_TEMPLATE_NOT_EXISTS',
      'DATA_OUT_INVALID_INPUT',
      'DATA_OUT_INVALID_DATE_RANGE',
      'DATA_OUT_SOURCE_NOT_FOUND',
      'DATASET_NOT_FOUND',
      'DATA_OUT_QUERY_FAILED',
      'DATA_OUT_QUERY_TIMEOUT',
    ],
    pathSchema: templateIdPath,
    bodySchema: envelopeSchema('api.query.template.query', inputSchema(RUN), { requestRequired: true }),
    operation: /* GraphQL */ `
      query RestRunTemplate($id: ID!, $input: RunTemplateInput!) {
        runTemplate(id: $id, input: $input)
      }
    `,
    variables: (input) => ({ id: pathParam(input, 'template_id'), input: toInput(RUN, input.body.request) }),
    result: (data) => data.runTemplate,
  }),

  defineEndpoint<RestDeleteTemplateMutation, RestDeleteTemplateMutationVariables>({
    method: 'DELETE',
    path: '/v2/template/delete/:template_id',
    apiId: 'api.query.template.delete',
    summary: 'Delete a query template',
    invalidInputCode: 'QUERY_TEMPLATE_INVALID_INPUT',
    errorCodes: ['QUERY_TEMPLATE_NOT_EXISTS'],
    pathSchema: templateIdPath,
    operation: /* GraphQL */ `
      mutation RestDeleteTemplate($id: ID!) {
        deleteTemplate(id: $id) {
          message
        }
      }
    `,
    variables: (input) => ({ id: pathParam(input, 'template_id') }),
    result: (data) => ({ message: data.deleteTemplate.message }),
  }),
];
