// Lineage has no root field: it is a field of datasets, templates and alert rules, admitted with them.
// Its answer depends on which types the caller may read (hidden records are left out), not only on
// the root field's API ids, so an answer selecting it is never kept to serve another caller.
import type { PublishedReads } from '../../graphql/published-reads.js';

export const lineagePublishedReads: PublishedReads = {
  tables: {},
  unpublished: ['Dataset.lineage', 'QueryTemplate.lineage', 'AlertRule.lineage'],
};
