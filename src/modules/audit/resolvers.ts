// GraphQL resolvers for the audit trail: arguments in, service call, result out.
import { globalId } from '../../graphql/global-id.js';
import type { Resolvers } from '../../generated/graphql.js';
import { auditCursor } from './service.js';

export const auditResolvers: Resolvers = {
  Query: {
    // api.audit.read (src/modules/audit/permissions.ts): admin alone in the default policy.
    auditRecords: (_, { filter, first, after }, { services }) => services.audit.list(filter ?? {}, first, after),
  },
  AuditRecord: {
    id: (record) => globalId('AuditRecord', record.id),
    auditRecordId: (record) => record.id,
  },
  AuditRecordConnection: {
    edges: (page) => page.items.map((node) => ({ cursor: auditCursor(node.id), node })),
    nodes: (page) => page.items,
    pageInfo: (page) => ({
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: page.items[0] ? auditCursor(page.items[0].id) : null,
      endCursor: page.items.at(-1) ? auditCursor(page.items.at(-1)!.id) : null,
    }),
    totalCount: (page) => page.countAll(),
  },
};
