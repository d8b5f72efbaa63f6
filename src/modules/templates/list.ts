// The template list's contract: what a `where`, `orderBy` and `groupBy` may name, and the indexed
// column each reads (migration 20261202000000_list_indexes).
import type { ListDeclaration } from '../../platform/lists/declaration.js';
import { QUERY_TYPE_VALUES } from './types.js';

export const templateList: ListDeclaration = {
  type: 'QueryTemplate',
  plural: 'query templates',
  table: 'query_templates',
  model: 'QueryTemplate',
  key: ['template_id'],
  fields: {
    templateId: { column: 'template_id', kind: 'key', description: 'The template id.', orderable: true },
    name: { column: 'template_name', kind: 'text', description: 'The template name.', orderable: true },
    queryType: { column: 'query_type', kind: 'enum', enumType: 'QueryType', enumValues: QUERY_TYPE_VALUES, description: 'The language of the query.', groupable: true },
    createdBy: { column: 'created_by', kind: 'key', description: 'Who created the template.', groupable: true },
    createdAt: { column: 'created_date', kind: 'time', description: 'When the template was created.', orderable: true },
    updatedAt: { column: 'updated_date', kind: 'time', description: 'When the template was last changed.', orderable: true },
  },
  defaultOrder: [{ field: 'createdAt', direction: 'desc' }],
  invalidInputCode: 'QUERY_TEMPLATE_INVALID_INPUT',
};
