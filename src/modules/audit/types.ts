// Domain types of the audit trail, shared by the trail, the service, the store and the GraphQL mappers.

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

export interface AuditPage {
  items: AuditRecord[];
  hasNextPage: boolean;
  /** True when the page started after a cursor. */
  hasPreviousPage: boolean;
  /** Counts every match over all pages; run only when a client asks for it. */
  countAll: () => Promise<number>;
}

/** GraphQL's AuditTransport values and what this domain calls each (resolvers, codegen and REST all read this). */
export const AUDIT_TRANSPORT_VALUES = { GRAPHQL: 'graphql', REST: 'rest' } as const;

/** GraphQL's AuditOutcome values and what this domain calls each (resolvers, codegen and REST all read this). */
export const AUDIT_OUTCOME_VALUES = { SUCCESS: 'success', FAILURE: 'failure' } as const;
