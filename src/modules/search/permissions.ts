// Who may call `search`: anyone who may read at least one of the types it finds. Each type is then
// searched only for a caller its own root fields admit (NODE_READ_API_IDS), so a search is never
// more open than the lists it spans.
import type { FieldPermissions } from '../../auth/field-api-ids.js';
import { NODE_READ_API_IDS } from '../../graphql/nodes.js';
import { SEARCHABLE_TYPES } from './types.js';

export const searchFieldPermissions: FieldPermissions = {
  'Query.search': [...new Set(SEARCHABLE_TYPES.flatMap((type) => NODE_READ_API_IDS[type]))],
};
