// Who may call `search` and `autocomplete`: anyone who may read at least one of the types they find.
// Each type is then searched only for a caller its own root fields admit (NODE_READ_API_IDS), so a
// search is never more open than the lists it spans.
import type { FieldPermissions } from '../../auth/field-api-ids.js';
import { NODE_READ_API_IDS } from '../../graphql/nodes.js';
import { SEARCHABLE_TYPES } from './types.js';

const READERS = [...new Set(SEARCHABLE_TYPES.flatMap((type) => NODE_READ_API_IDS[type]))];

export const searchFieldPermissions: FieldPermissions = {
  'Query.search': READERS,
  'Query.autocomplete': READERS,
};
