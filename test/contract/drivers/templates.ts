// The two transports of the query-template scenarios, answering in the REST contract's spelling:
// snake_case records, query types sql/json. GraphQL's query is a String, so its driver sends a json
// query given as an object as JSON text (as a GraphQL client would).
import { envelope, graphql } from '../../support/api.js';
import type { TestGateway } from '../../support/gateway.js';
import { TEMPLATE_API } from '../../support/templates.js';
import { graphqlServiceOutcome, mapOutcome, restOutcome } from '../harness.js';
import type { QueryType, TemplateQuery, TemplateRecord, TemplatesDriver } from '../templates.js';

export function restTemplatesDriver(gw: TestGateway): TemplatesDriver {
  const at = (action: string, id: string) => `/v2/template/${action}/${encodeURIComponent(id)}`;
  return {
    create: async (template) => restOutcome(await gw.http.post('/v2/template/create').send(envelope(TEMPLATE_API.create, template))),
    read: async (id) => restOutcome(await gw.http.get(at('read', id))),
    list: async (request = {}) => restOutcome(await gw.http.post('/v2/template/list').send(envelope(TEMPLATE_API.list, request))),
    update: async (id, changes) => restOutcome(await gw.http.patch(at('update', id)).send(envelope(TEMPLATE_API.update, changes))),
    remove: async (id) => restOutcome(await gw.http.delete(at('delete', id))),
  };
}

interface QueryTemplate {
  id: string;
  name: string;
  query: string;
  queryType: 'SQL' | 'JSON';
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
}

const FIELDS = 'id: templateId name query queryType createdBy updatedBy createdAt updatedAt';

function asRecord(template: QueryTemplate): TemplateRecord {
  return {
    template_id: template.id,
    template_name: template.name,
    query: template.query,
    query_type: template.queryType.toLowerCase() as QueryType,
    created_by: template.createdBy,
    updated_by: template.updatedBy,
    created_date: template.createdAt,
    updated_date: template.updatedAt,
  };
}

const queryText = (query: TemplateQuery | undefined) => (query === undefined || typeof query === 'string' ? query : JSON.stringify(query));
const queryTypeEnum = (queryType: QueryType | undefined) => queryType?.toUpperCase();

export function graphqlTemplatesDriver(gw: TestGateway): TemplatesDriver {
  return {
    async create({ template_name, query_type, query }) {
      const response = await graphql(gw, 'mutation($input: CreateQueryTemplateInput!) { createTemplate(input: $input) { message template { id: templateId name } } }', {
        input: { name: template_name, queryType: queryTypeEnum(query_type), query: queryText(query) },
      });
      return mapOutcome(graphqlServiceOutcome<{ message: string; template: { id: string; name: string } }>(response, 'createTemplate'), ({ message, template }) => ({
        template_id: template.id,
        template_name: template.name,
        message,
      }));
    },
    async read(id) {
      return mapOutcome(graphqlServiceOutcome<QueryTemplate>(await graphql(gw, `query($id: ID!) { template(id: $id) { ${FIELDS} } }`, { id }), 'template'), asRecord);
    },
    async list({ filters, sortBy, limit } = {}) {
      const response = await graphql(
        gw,
        `query($filter: QueryTemplateFilter, $sort: [QueryTemplateSort!], $first: Int) { templates(filter: $filter, sort: $sort, first: $first) { nodes { ${FIELDS} } } }`,
        {
          filter: filters && { queryType: queryTypeEnum(filters.query_type) },
          sort: sortBy?.map(({ field, order }) => ({ field: field.toUpperCase(), ...(order ? { order: order.toUpperCase() } : {}) })),
          first: limit ?? null,
        },
      );
      return mapOutcome(graphqlServiceOutcome<{ nodes: QueryTemplate[] }>(response, 'templates'), ({ nodes }) => nodes.map(asRecord));
    },
    async update(id, { template_name, query_type, query }) {
      const response = await graphql(gw, 'mutation($id: ID!, $input: UpdateQueryTemplateInput!) { updateTemplate(id: $id, input: $input) { message template { id: templateId } } }', {
        id,
        input: { name: template_name, queryType: queryTypeEnum(query_type), query: queryText(query) },
      });
      return mapOutcome(graphqlServiceOutcome<{ message: string; template: { id: string } }>(response, 'updateTemplate'), ({ message, template }) => ({ message, templateId: template.id }));
    },
    async remove(id) {
      return mapOutcome(graphqlServiceOutcome<{ message: string }>(await graphql(gw, 'mutation($id: ID!) { deleteTemplate(id: $id) { message } }', { id }), 'deleteTemplate'), ({ message }) => ({
        message,
      }));
    },
  };
}
