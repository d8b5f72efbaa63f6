// The audit trail's list contract: what a `where`, `orderBy` and `groupBy` may name, and the indexed
// column each reads (migrations 20261122070000_audit and 20261203000000_audit_list_indexes). The
// trail grows without bound, so it is declared `large`: a filter must narrow it by some field.
import type { ListDeclaration } from '../../platform/lists/declaration.js';
import { AUDIT_OUTCOME_VALUES, AUDIT_TRANSPORT_VALUES } from './types.js';

export const auditList: ListDeclaration = {
  type: 'AuditRecord',
  plural: 'audit records',
  table: 'audit_records',
  model: 'AuditRecord',
  key: ['id'],
  fields: {
    auditRecordId: { column: 'id', kind: 'key', bigint: true, description: 'The position in the trail (a whole number).', orderable: true },
    at: { column: 'at', kind: 'time', description: 'When the call finished.', orderable: true },
    actor: { column: 'actor', kind: 'key', description: 'Who made the call.', groupable: true },
    operation: { column: 'operation', kind: 'key', description: 'The GraphQL mutation field that ran.', groupable: true },
    apiId: { column: 'api_id', kind: 'key', nullable: true, description: 'The REST API id, for a call made over REST.', groupable: true },
    transport: { column: 'transport', kind: 'enum', enumType: 'AuditTransport', enumValues: AUDIT_TRANSPORT_VALUES, description: 'Which transport carried the call.', groupable: true },
    targetId: { column: 'target_id', kind: 'key', nullable: true, description: 'The id of what the call changed.' },
    outcome: { column: 'outcome', kind: 'enum', enumType: 'AuditOutcome', enumValues: AUDIT_OUTCOME_VALUES, description: 'How the call ended.', groupable: true },
    errorCode: { column: 'error_code', kind: 'key', nullable: true, description: 'The error code of a failed call.', groupable: true },
    requestId: { column: 'request_id', kind: 'key', description: 'The request id (`x-request-id`) of the call.' },
  },
  // Newest first: the trail's ids grow with time.
  defaultOrder: [{ field: 'auditRecordId', direction: 'desc' }],
  // The code the trail's bad arguments always had.
  invalidInputCode: 'INVALID_INPUT',
  large: true,
};
