// The embedded event store: the default event bus when no Kafka is configured. It applies the
// ingestion pipeline's rules (handed to it as EventProcessing) to each message and writes the
// outcome in ONE transaction: either every event of the request is stored (accepted, or kept as
// failed with its stage and reason), or none.
import type pg from 'pg';
import type { DatasetRecord, JsonObject } from '../dataset.js';
import type { EventBus, EventProcessing, IngestMessage, PublishOutcome, PublishTally, RefusedEvent, RefusingStage } from './event-bus.js';
import { textOf } from '../../validation/json-object.js';

/**
 * The rows of events to store: $1 dataset, $2 arrival (epoch ms), $3 msgid, $4 the events as one JSON
 * array, $5 their times (epoch ms, float8[]) in the same order, zipped by ROWS FROM. Event times
 * travel as epoch milliseconds (converting each to ISO text cost more than the insert) and apart
 * from the events, so the batch is serialised as it came, without a wrapper object per event.
 */
const SELECT_EVENT_ROWS = `SELECT $1, to_timestamp(r.ms / 1000.0), to_timestamp($2 / 1000.0), $3, r.payload
  FROM ROWS FROM (jsonb_array_elements($4::jsonb), unnest($5::float8[])) AS r(payload, ms)`;

/** The events' times as the elements of a PostgreSQL array literal (finite numbers only), written at once: pg's own array conversion quotes each element. */
function eventTimes(processing: EventProcessing, events: readonly JsonObject[], dataset: DatasetRecord, arrival: number): string {
  return events.map((event) => processing.eventTime(event, dataset, arrival)).join(',');
}

/** Where an event was in the request (ExtractedEvent's index and item). */
interface Position {
  index: number;
  item?: number;
}

interface Failed extends Position {
  stage: RefusingStage;
  reason: string;
  payload: unknown;
}

/** The refused events as the caller sees them (no payloads: the caller sent them), in request order. */
function refusedEvents(failed: readonly Failed[]): RefusedEvent[] {
  return failed
    .map(({ index, item, stage, reason }): RefusedEvent => (item === undefined ? { index, stage, reason } : { index, item, stage, reason }))
    .sort((a, b) => a.index - b.index || (a.item ?? 0) - (b.item ?? 0));
}

/** The failed_events rows' JSON: stage, reason and payload only (positions are the caller's, not stored). */
function failedRows(failed: readonly Failed[]): string {
  return JSON.stringify(failed.map(({ stage, reason, payload }) => ({ stage, reason, payload: payload ?? null })));
}

/** What a request came to: `stored` events kept, the `failed` ones (duplicates among them) kept apart. */
function outcomeOf(stored: number, failed: readonly Failed[]): PublishOutcome {
  const duplicates = failed.filter((f) => f.stage === 'dedup').length;
  return {
    accepted: stored + failed.length,
    processed: stored,
    duplicates,
    failed: failed.length - duplicates,
    refusedBy: refusedByStage(failed),
    refused: refusedEvents(failed),
  };
}

/**
 * The fast path's statement: the accepted and the refused events of one or more requests, and their
 * tallies when there are. Per request, $1 its dataset, $2 its arrival (epoch ms) and $3 its msgid;
 * per event, $4 the events as one JSON array, $5 their times (epoch ms) and $6 the request each
 * belongs to (1-based, into $1-$3); $7 the refused events, each with its request; $8 the tallies.
 * Unnamed: a named (prepared) statement fails through PgBouncer in transaction mode, where the next
 * call of a connection may run on a server connection that never saw it, or one that already has it.
 */
const fastStatements = new Map<PublishTally | undefined, string>();
function fastStatement(tally: PublishTally | undefined): string {
  let statement = fastStatements.get(tally);
  if (!statement) {
    statement = `WITH stored AS (
           INSERT INTO events (dataset_id, event_time, arrival_time, msgid, payload)
           SELECT ($1::text[])[r.n], to_timestamp(r.ms / 1000.0), to_timestamp(($2::float8[])[r.n] / 1000.0), ($3::text[])[r.n], r.payload
           FROM ROWS FROM (jsonb_array_elements($4::jsonb), unnest($5::float8[]), unnest($6::int[])) AS r(payload, ms, n)
         ), refused AS (
           INSERT INTO failed_events (dataset_id, stage, reason, arrival_time, msgid, payload)
           SELECT ($1::text[])[r.n], r.stage, r.reason, to_timestamp(($2::float8[])[r.n] / 1000.0), ($3::text[])[r.n], r.payload
           FROM jsonb_to_recordset($7::jsonb) AS r(n int, stage text, reason text, payload jsonb)
         )${tally ? `, tallied AS (${tally.statement('$8')})` : ''}
         SELECT 1`;
    fastStatements.set(tally, statement);
  }
  return statement;
}

/** One request's rows for the fast path's statement, waiting for the others of its turn of the event loop. */
interface PendingWrite {
  datasetId: string;
  arrival: number;
  msgid: string;
  events: readonly JsonObject[];
  /** The events' times (epoch ms), as the array literal's elements. */
  times: string;
  failed: readonly Failed[];
  tallyValue: unknown;
  written: () => void;
  refused: (error: unknown) => void;
}

/** Most requests, and events, one statement stores: a larger turn's writes go in several statements. */
const MAX_REQUESTS_PER_STATEMENT = 200;
const MAX_EVENTS_PER_STATEMENT = 10_000;

/** The statement's values for the requests given (in order). */
function fastStatementValues(writes: readonly PendingWrite[], tallied: boolean): unknown[] {
  const events: JsonObject[] = [];
  const times: string[] = [];
  const requestOfEvent: string[] = [];
  const refused: { n: number; stage: string; reason: string; payload: unknown }[] = [];
  writes.forEach((write, at) => {
    const n = at + 1;
    for (const event of write.events) {
      events.push(event);
      requestOfEvent.push(String(n));
    }
    if (write.events.length > 0) times.push(write.times);
    for (const { stage, reason, payload } of write.failed) refused.push({ n, stage, reason, payload: payload ?? null });
  });
  const values: unknown[] = [
    writes.map((write) => write.datasetId),
    writes.map((write) => write.arrival),
    writes.map((write) => write.msgid),
    JSON.stringify(events),
    `{${times.join(',')}}`,
    `{${requestOfEvent.join(',')}}`,
    JSON.stringify(refused),
  ];
  if (tallied) values.push(JSON.stringify(writes.map((write) => write.tallyValue)));
  return values;
}

function refusedByStage(failed: readonly Failed[]): Partial<Record<RefusingStage, number>> {
  const counts: Partial<Record<RefusingStage, number>> = {};
  for (const { stage } of failed) counts[stage] = (counts[stage] ?? 0) + 1;
  return counts;
}

interface Candidate extends Position {
  event: JsonObject;
  dedupKey?: string;
}

export class EmbeddedEventStore implements EventBus {
  readonly name = 'embedded event store (PostgreSQL tables events, failed_events, event_dedup, master_records)';

  /**
   * Requests waiting for the fast path's statement, by tally: those that reach it in the same turn
   * of the event loop share one statement (one round trip and one commit instead of one each, which
   * under concurrent single-event calls is most of a call's cost), sent at the end of the turn.
   */
  private readonly pendingWrites = new Map<PublishTally | undefined, { writes: PendingWrite[]; events: number }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly processing: EventProcessing,
  ) {}

  private writeSoon(tally: PublishTally | undefined, write: PendingWrite): void {
    let pending = this.pendingWrites.get(tally);
    if (pending && (pending.writes.length >= MAX_REQUESTS_PER_STATEMENT || pending.events + write.events.length > MAX_EVENTS_PER_STATEMENT)) {
      this.pendingWrites.delete(tally);
      void this.writeTogether(tally, pending.writes);
      pending = undefined;
    }
    if (!pending) {
      const started = { writes: [] as PendingWrite[], events: 0 };
      this.pendingWrites.set(tally, started);
      setImmediate(() => {
        if (this.pendingWrites.get(tally) !== started) return;
        this.pendingWrites.delete(tally);
        void this.writeTogether(tally, started.writes);
      });
      pending = started;
    }
    pending.writes.push(write);
    pending.events += write.events.length;
  }

  /**
   * One statement for the requests given. When it fails with several, each is written again alone,
   * so that one request's failure (an event the database refuses) is its own and not its turn's.
   */
  private async writeTogether(tally: PublishTally | undefined, writes: readonly PendingWrite[]): Promise<void> {
    try {
      await this.pool.query(fastStatement(tally), fastStatementValues(writes, tally !== undefined));
    } catch (error) {
      if (writes.length === 1) return writes[0]!.refused(error);
      await Promise.all(writes.map((write) => this.writeTogether(tally, [write])));
      return;
    }
    for (const write of writes) write.written();
  }

  async publish(message: IngestMessage, dataset: DatasetRecord, tally?: PublishTally): Promise<PublishOutcome> {
    const arrival = typeof (message.value.obsrv_meta as JsonObject | undefined)?.syncts === 'number' ? ((message.value.obsrv_meta as JsonObject).syncts as number) : Date.now();
    const msgid = textOf(message.value.msgid ?? message.key);
    const failed: Failed[] = [];
    const candidates: Candidate[] = [];
    const seenInRequest = new Set<string>();

    const validationProblem = this.processing.eventValidator(dataset);
    for (const { event, index, item } of this.processing.extractEvents(message.value, dataset)) {
      if (event === null || typeof event !== 'object' || Array.isArray(event)) {
        failed.push({ index, item, stage: 'extraction', reason: 'the extracted item is not a JSON object', payload: event });
        continue;
      }
      const problem = validationProblem(event as JsonObject);
      if (problem) {
        failed.push({ index, item, stage: 'validation', reason: problem, payload: event });
        continue;
      }
      const dedupKey = this.processing.dedupKeyOf(event as JsonObject, dataset);
      if (dedupKey !== undefined && seenInRequest.has(dedupKey)) {
        failed.push({ index, item, stage: 'dedup', reason: `duplicate: ${textOf(dataset.dedupConfig?.dedup_key)} ${dedupKey} repeats an earlier event of the same request`, payload: event });
        continue;
      }
      if (dedupKey !== undefined) seenInRequest.add(dedupKey);
      candidates.push({ event: event as JsonObject, index, item, dedupKey });
    }

    // No dedup keys to claim and no master records to upsert: the accepted and the refused events
    // (and the tally) go in one statement, atomic on its own, without a transaction's extra round
    // trips; with those of the other requests of this turn of the event loop (writeSoon).
    if (dataset.type !== 'master' && candidates.every((candidate) => candidate.dedupKey === undefined)) {
      const accepted = candidates.map((candidate) => candidate.event);
      await this.denormalise(this.pool, dataset, accepted);
      const outcome = outcomeOf(accepted.length, failed);
      await new Promise<void>((written, refused) =>
        this.writeSoon(tally, {
          datasetId: dataset.datasetId,
          arrival,
          msgid,
          events: accepted,
          times: eventTimes(this.processing, accepted, dataset, arrival),
          failed,
          tallyValue: tally?.value(dataset.datasetId, outcome),
          written,
          refused,
        }),
      );
      return tally ? { ...outcome, tallied: true } : outcome;
    }

    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const fresh = await this.claimDedupKeys(client, dataset, candidates);
      const accepted: Candidate[] = [];
      for (const candidate of candidates) {
        if (candidate.dedupKey !== undefined && !fresh.has(candidate.dedupKey)) {
          failed.push({
            index: candidate.index,
            item: candidate.item,
            stage: 'dedup',
            reason: `duplicate: ${textOf(dataset.dedupConfig?.dedup_key)} ${candidate.dedupKey} was seen within the last ${this.processing.dedupPeriodSeconds(dataset)} s`,
            payload: candidate.event,
          });
        } else accepted.push(candidate);
      }

      let stored = accepted.map((candidate) => candidate.event);
      if (dataset.type === 'master') stored = await this.upsertMasters(client, dataset, accepted, failed);
      else await this.denormalise(client, dataset, stored);

      if (stored.length > 0) {
        await client.query(`INSERT INTO events (dataset_id, event_time, arrival_time, msgid, payload) ${SELECT_EVENT_ROWS}`, [
          dataset.datasetId,
          arrival,
          msgid,
          JSON.stringify(stored),
          `{${eventTimes(this.processing, stored, dataset, arrival)}}`,
        ]);
      }
      if (failed.length > 0) {
        await client.query(
          `INSERT INTO failed_events (dataset_id, stage, reason, arrival_time, msgid, payload)
           SELECT $1, r.stage, r.reason, to_timestamp($2 / 1000.0), $3, r.payload FROM jsonb_to_recordset($4::jsonb) AS r(stage text, reason text, payload jsonb)`,
          [dataset.datasetId, arrival, msgid, failedRows(failed)],
        );
      }
      const outcome = outcomeOf(stored.length, failed);
      if (tally) await client.query(`WITH tallied AS (${tally.statement('$1')}) SELECT 1`, [JSON.stringify([tally.value(dataset.datasetId, outcome)])]);
      await client.query('COMMIT');
      return tally ? { ...outcome, tallied: true } : outcome;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Records the request's dedup keys; returns those not seen within the period (race-free across requests). */
  private async claimDedupKeys(client: pg.PoolClient, dataset: DatasetRecord, candidates: Candidate[]): Promise<Set<string>> {
    const keys = candidates.flatMap((candidate) => (candidate.dedupKey === undefined ? [] : [candidate.dedupKey]));
    if (keys.length === 0) return new Set();
    const result = await client.query<{ dedup_key: string }>(
      `INSERT INTO event_dedup (dataset_id, dedup_key, seen_at) SELECT $1, k, now() FROM unnest($2::text[]) AS k
       ON CONFLICT (dataset_id, dedup_key) DO UPDATE SET seen_at = excluded.seen_at
         WHERE event_dedup.seen_at < now() - make_interval(secs => $3)
       RETURNING dedup_key`,
      [dataset.datasetId, keys, this.processing.dedupPeriodSeconds(dataset)],
    );
    return new Set(result.rows.map((row) => row.dedup_key));
  }

  /** Master datasets: the latest event per data_key becomes the master record. */
  private async upsertMasters(client: pg.PoolClient, dataset: DatasetRecord, candidates: Candidate[], failed: Failed[]): Promise<JsonObject[]> {
    const latest = new Map<string, JsonObject>();
    const kept: JsonObject[] = [];
    for (const { event, index, item } of candidates) {
      const key = this.processing.masterKeyOf(event, dataset);
      if (key === undefined) {
        failed.push({ index, item, stage: 'master', reason: "the event has no value at the dataset's data_key", payload: event });
        continue;
      }
      latest.set(key, event);
      kept.push(event);
    }
    if (latest.size > 0) {
      await client.query(
        `INSERT INTO master_records (dataset_id, record_key, payload, updated_at)
         SELECT $1, r.record_key, r.payload, now() FROM jsonb_to_recordset($2::jsonb) AS r(record_key text, payload jsonb)
         ON CONFLICT (dataset_id, record_key) DO UPDATE SET payload = excluded.payload, updated_at = now()`,
        [dataset.datasetId, JSON.stringify([...latest].map(([record_key, payload]) => ({ record_key, payload })))],
      );
    }
    return kept;
  }

  /** Adds each denorm field's master record (or null when there is none) to the events, in place. */
  private async denormalise(client: pg.Pool | pg.PoolClient, dataset: DatasetRecord, events: JsonObject[]): Promise<void> {
    const fields = this.processing.denormFields(dataset);
    if (fields.length === 0 || events.length === 0) return;
    const lookups = new Map<string, { masterId: string; key: string }>();
    for (const event of events) {
      for (const field of fields) {
        const key = this.processing.valueAt(event, field.key);
        if (key !== undefined && key !== null && typeof key !== 'object') lookups.set(`${field.masterId}\u0000${textOf(key)}`, { masterId: field.masterId, key: textOf(key) });
      }
    }
    const found = new Map<string, unknown>();
    if (lookups.size > 0) {
      const pairs = [...lookups.values()];
      const result = await client.query<{ dataset_id: string; record_key: string; payload: unknown }>(
        `SELECT m.dataset_id, m.record_key, m.payload FROM master_records m
         JOIN unnest($1::text[], $2::text[]) AS k(dataset_id, record_key) USING (dataset_id, record_key)`,
        [pairs.map((p) => p.masterId), pairs.map((p) => p.key)],
      );
      for (const row of result.rows) found.set(`${row.dataset_id}\u0000${row.record_key}`, row.payload);
    }
    for (const event of events) {
      for (const field of fields) {
        const key = this.processing.valueAt(event, field.key);
        event[field.outField] = key === undefined || key === null ? null : (found.get(`${field.masterId}\u0000${textOf(key)}`) ?? null);
      }
    }
  }

  async close(): Promise<void> {}
}
