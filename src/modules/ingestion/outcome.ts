// What one ingest call tells its caller, as the domain spells it (GraphQL's enums map to these).
import type { RefusedEvent, RefusingStage } from '../../platform/event-bus/event-bus.js';

/** PROCESSED: the embedded event store ran processing in the call; QUEUED: Kafka acknowledged, processing is downstream. */
export const INGEST_OUTCOME_VALUES = { PROCESSED: 'processed', QUEUED: 'queued' } as const;
export type IngestOutcome = (typeof INGEST_OUTCOME_VALUES)[keyof typeof INGEST_OUTCOME_VALUES];

/** The processing stage that refused an event. */
export const INGEST_REFUSAL_STAGE_VALUES = { EXTRACTION: 'extraction', VALIDATION: 'validation', DEDUP: 'dedup', MASTER: 'master' } as const satisfies Record<string, RefusingStage>;

export interface IngestResult {
  outcome: IngestOutcome;
  /** Events taken in: stored, or kept as failed (embedded); acknowledged by the broker (Kafka). */
  accepted: number;
  /** The rest are known only once processing has run (embedded): null when it is queued (Kafka). */
  processed: number | null;
  duplicates: number | null;
  failed: number | null;
  refused: RefusedEvent[] | null;
}
