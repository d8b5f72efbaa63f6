// GraphQL resolvers for the audit trail: arguments in, service call, result out.
import { globalId } from '../../graphql/global-id.js';
import type { Resolvers } from '../../generated/graphql.js';
import { listConnectionResolvers } from '../../graphql/list-connection.js';
import type { AuditRecord } from './types.js';

export const auditResolvers: Resolvers = {
  Query: {
    // api.audit.read (src/modules/audit/permissions.ts): admin alone in the default policy.
    auditRecords: (_, { filter, where, orderBy, first, after, last, before }, { services }) => services.audit.list({ filter, where, orderBy, first, after, last, before }),
  },
  AuditRecord: {
    id: (record) => globalId('AuditRecord', record.id),
    auditRecordId: (record) => record.id,
  },
  AuditRecordConnection: listConnectionResolvers<AuditRecord>(),
};
