// The template list's contract: what a `where`, `orderBy` and `groupBy` may name, and the indexed
// column each reads (migration 20261202000000_list_indexes).
import { changeTimeFields, defineList } from '../../platform/lists/declaration.js';
import type { ListLink } from '../../platform/lists/nested-list.js';
import { QUERY_TYPE_VALUES } from './types.js';

export const templateList = defineList(
  { type: 'QueryTemplate', plural: 'query templates', table: 'query_templates', key: ['template_id'], invalidInputCode: 'QUERY_TEMPLATE_INVALID_INPUT' },
  {
    templateId: { column: 'template_id', kind: 'key', description: 'The template id.', orderable: true },
    name: { column: 'template_name', kind: 'text', description: 'The template name.', orderable: true },
    queryType: { column: 'query_type', kind: 'enum', enumType: 'QueryType', enumValues: QUERY_TYPE_VALUES, description: 'The language of the query.', groupable: true },
    createdBy: { column: 'created_by', kind: 'key', description: 'Who created the template.', groupable: true },
    ...changeTimeFields('template'),
  },
);

/**
 * The names a template's query holds, in SQL: namesInQuery's rule (placeholders blanked, then the
 * runs of `[A-Za-z0-9_.-]`), as an array. Migration 20261204036100_template_dataset_names_index
 * indexes this very expression (GIN), so a dataset's templates are found without reading the table.
 */
const QUERY_NAMES_SQL = `regexp_split_to_array(regexp_replace(query, '\\{\\{[A-Za-z]+\\}\\}', ' ', 'g'), '[^A-Za-z0-9_.-]+')`;

/** A dataset's templates (`Dataset.templatePage`): those whose query names the parent's dataset id. */
export const templateDatasetLink: ListLink = { parentKey: QUERY_NAMES_SQL, keyType: 'text', several: true };
