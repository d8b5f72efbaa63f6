// The connector list's contract: what a `where`, `orderBy` and `groupBy` may name, and the indexed
// column each reads (migration 20261202000000_list_indexes).
import { changeTimeFields, defineList } from '../../platform/lists/declaration.js';
import { CONNECTOR_CATEGORY_VALUES, CONNECTOR_STATUS_VALUES } from './types.js';

export const connectorList = defineList(
  { type: 'Connector', plural: 'connector versions', table: 'connector_registry', defaultOrder: [{ field: 'name', direction: 'asc' }], invalidInputCode: 'CONNECTORS_LIST_INPUT_INVALID' },
  {
    connectorVersionId: { column: 'id', kind: 'key', description: 'The connector version id.', orderable: true },
    connectorId: { column: 'connector_id', kind: 'key', description: 'The connector id (the same for all its versions).' },
    name: { column: 'name', kind: 'text', description: 'The connector name.', orderable: true },
    status: { column: 'status', kind: 'enum', enumType: 'ConnectorStatus', enumValues: CONNECTOR_STATUS_VALUES, description: 'The version state.', groupable: true },
    category: { column: 'category', kind: 'enum', enumType: 'ConnectorCategory', enumValues: CONNECTOR_CATEGORY_VALUES, description: 'What the connector reads from.', groupable: true },
    type: { column: 'type', kind: 'key', description: 'What the connector does (e.g. source).' },
    technology: { column: 'technology', kind: 'key', description: 'What it is built with (e.g. scala, python).', groupable: true },
    ...changeTimeFields('version', 'registered'),
  },
);
