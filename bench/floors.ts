// The hand-written express + pg "floors" the write benches compare the gateway with: the same SQL
// with nothing around it (no GraphQL, no envelope checks, no access control), on the gateway's own
// tables. ingest-and-query.ts and writes.ts share the ingestion floor, so both compare ingestion
// with the same thing.
import express from 'express';
import type pg from 'pg';

/** INSERT text for `rows` events: $1 dataset, $2 arrival, $3 msgid, then event time and payload per row. */
function floorInsertSql(rows: number): string {
  const values = Array.from({ length: rows }, (_, row) => `($1, $${4 + 2 * row}::timestamptz, $2::timestamptz, $3, $${5 + 2 * row}::jsonb)`);
  return `INSERT INTO events (dataset_id, event_time, arrival_time, msgid, payload) VALUES ${values.join(', ')}`;
}

/**
 * POST /data/in/:id: one multi-row INSERT per request (autocommit: durable once it answers), a named
 * statement per batch size so each is parsed and planned once per connection. The event time is the
 * event's `ts`.
 */
export function addIngestFloor(app: express.Express, pool: pg.Pool, maxBatch: number): void {
  const insertSql = new Map<number, string>();
  app.post('/data/in/:id', express.json({ limit: '10mb' }), async (req, res) => {
    const body = req.body as { params: { msgid: string }; data: Record<string, unknown> | Record<string, unknown>[] };
    const events = Array.isArray(body.data) ? body.data : [body.data];
    if (events.length === 0 || events.length > maxBatch) {
      res.status(400).json({ error: 'bad batch' });
      return;
    }
    const values: unknown[] = [req.params.id, new Date().toISOString(), body.params.msgid];
    for (const event of events) values.push(event.ts, JSON.stringify(event));
    let text = insertSql.get(events.length);
    if (text === undefined) {
      text = floorInsertSql(events.length);
      insertSql.set(events.length, text);
    }
    await pool.query({ name: `floor_ingest_${events.length}`, text, values });
    res.json({ result: { message: 'Data ingested successfully' } });
  });
}
