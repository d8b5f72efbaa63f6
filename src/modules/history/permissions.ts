// History has no root field: it is a field of the records it tells about, admitted with them. The
// versions it reads are written by every change to those records; an answer selecting it is never
// kept (its table is not among the announced ones).
import type { PublishedReads } from '../../graphql/published-reads.js';

export const historyPublishedReads: PublishedReads = {
  tables: {},
  unpublished: ['Dataset.history', 'QueryTemplate.history', 'AlertRule.history', 'NotificationChannel.history'],
};
