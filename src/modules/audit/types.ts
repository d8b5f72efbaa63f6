// Domain types of the audit trail, shared by the trail, the service, the store and the GraphQL mappers.
import type { ListPage } from '../../platform/lists/list-query.js';

export type AuditTransport = 'graphql' | 'rest';
export type AuditOutcome = 'success' | 'failure';

export interface AuditRecord {
  /** Position in the trail (a bigint as text). */
  id: string;
  at: Date;
  requestId: string;
  actor: string;
  transport: AuditTransport;
  apiId: string | null;
  operation: string;
  targetId: string | null;
  outcome: AuditOutcome;
  errorCode: string | null;
}

export type NewAuditRecord = Omit<AuditRecord, 'id' | 'at'>;

export interface AuditFilter {
  actor?: string | null;
  operation?: string | null;
  apiId?: string | null;
  targetId?: string | null;
  outcome?: AuditOutcome | null;
  transport?: AuditTransport | null;
  since?: Date | null;
  until?: Date | null;
}

/** A page of the trail (the list contract's page: items, cursors, counts). */
export type AuditPage = ListPage<AuditRecord>;

/** GraphQL's AuditTransport values and what this domain calls each (resolvers, codegen and REST all read this). */
export const AUDIT_TRANSPORT_VALUES = { GRAPHQL: 'graphql', REST: 'rest' } as const;

/** GraphQL's AuditOutcome values and what this domain calls each (resolvers, codegen and REST all read this). */
export const AUDIT_OUTCOME_VALUES = { SUCCESS: 'success', FAILURE: 'failure' } as const;
