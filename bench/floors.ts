// The floors bench/gateway.ts and bench/cold-reads.ts measure the gateway against, each on its own
// pg pool over the gateway's database: the same SQL with a minimal envelope behind plain express 5,
// behind bare node:http (what a socket write plus the SQL costs), and an in-memory node:http server
// that keeps each answer serialised after its first read (a Map look-up and a fresh envelope per
// request: the wire's limit for a kept answer, issue 53). The write benches (ingest-and-query.ts,
// writes.ts) share the ingestion floor at the end, so both compare ingestion with the same thing.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import express from 'express';
import pg from 'pg';
import { listenFloor, type Floor } from './support.js';

/** Database connections of each floor (the gateway's default DB_POOL_MAX). */
const POOL_MAX = 10;

const COLUMNS = 'template_id, template_name, query, query_type, created_by, updated_by, created_date, updated_date';

// What the gateway's dataset answers carry (rest/datasets.ts: LIVE_READ_FIELDS,
// LIST_FIELDS, and DRAFT_LIST_EXTRA_FIELDS for drafts); the JSON keys are the column names.
const DATASET_READ_COLUMNS = 'dataset_id, name, type, status, tags, version, api_version, dataset_config, transformations_config, connectors_config';
const DATASET_LIST_COLUMNS = 'dataset_id, name, type, status, tags, version, version_key, api_version, dataset_config, created_date, updated_date';
const DATASET_DRAFT_EXTRAS =
  "json_build_object('data_schema', data_schema, 'validation_config', validation_config, 'dedup_config', dedup_config, " + "'denorm_config', denorm_config, 'connectors_config', connectors_config)";
// What a connector read and list carry (rest/connectors.ts); the read adds the form (ui_spec).
const CONNECTOR_COLUMNS = 'id, connector_id, name, type, category, version, description, licence, owner, iconurl, status, created_by, updated_by, created_date, updated_date, live_date';

/** The floors' SQL, one function per route: each returns the body to send, or undefined for 404. */
function floorQueries(pool: pg.Pool) {
  return {
    // Named statements are parsed and planned once per connection.
    templateRead: async (id: string): Promise<unknown> => {
      const found = await pool.query({ name: 'floor_template_read', text: `SELECT ${COLUMNS} FROM query_templates WHERE template_id = $1`, values: [id] });
      const row: unknown = found.rows[0];
      return row === undefined ? undefined : { result: row };
    },
    templateList: async (): Promise<unknown> => {
      const found = await pool.query({
        name: 'floor_template_list',
        text: `SELECT ${COLUMNS} FROM query_templates ORDER BY created_date DESC, template_id ASC LIMIT $1`,
        values: [1000],
      });
      return { result: found.rows };
    },
    // The Live version, as the gateway's default read; the primary key is (dataset_id, stage).
    datasetRead: async (id: string): Promise<unknown> => {
      const found = await pool.query({
        name: 'floor_dataset_read',
        text: `SELECT ${DATASET_READ_COLUMNS} FROM datasets WHERE dataset_id = $1 AND stage = 'live'`,
        values: [id],
      });
      const row: unknown = found.rows[0];
      return row === undefined ? undefined : { result: row };
    },
    // Live versions first, then drafts (which carry a few more fields), as the gateway lists them.
    datasetList: async (): Promise<unknown> => {
      const found = await pool.query<Record<string, unknown> & { draft_extras: Record<string, unknown> | null }>({
        name: 'floor_dataset_list',
        text:
          `SELECT ${DATASET_LIST_COLUMNS}, CASE WHEN stage = 'draft' THEN ${DATASET_DRAFT_EXTRAS} END AS draft_extras ` +
          `FROM datasets ORDER BY stage DESC, updated_date DESC, dataset_id ASC LIMIT $1`,
        values: [1000],
      });
      const data = found.rows.map(({ draft_extras, ...row }) => (draft_extras ? { ...row, ...draft_extras } : row));
      return { result: { data, count: data.length } };
    },
    // Connectors: the registry row the read shows (ui_spec included), and every Live connector for the list.
    connectorRead: async (id: string): Promise<unknown> => {
      const found = await pool.query({ name: 'floor_connector_read', text: `SELECT ${CONNECTOR_COLUMNS}, ui_spec FROM connector_registry WHERE id = $1`, values: [id] });
      const row: unknown = found.rows[0];
      return row === undefined ? undefined : { result: row };
    },
    connectorList: async (): Promise<unknown> => {
      const found = await pool.query({
        name: 'floor_connector_list',
        text: `SELECT ${CONNECTOR_COLUMNS} FROM connector_registry WHERE status = 'Live' ORDER BY created_date DESC, id ASC LIMIT $1`,
        values: [1000],
      });
      return { result: { data: found.rows, count: found.rows.length } };
    },
  };
}

function floorPool(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_MAX });
  pool.on('error', () => undefined);
  return pool;
}

export async function startExpressFloor(databaseUrl: string): Promise<Floor> {
  const pool = floorPool(databaseUrl);
  const queries = floorQueries(pool);
  const app = express();
  app.disable('x-powered-by');
  const answer = (res: express.Response, body: unknown) => (body === undefined ? res.status(404).json({ error: 'not found' }) : res.json(body));
  app.get('/template/read/:id', async (req, res) => answer(res, await queries.templateRead(req.params.id)));
  app.post('/template/list', express.json(), async (_req, res) => answer(res, await queries.templateList()));
  app.get('/dataset/read/:id', async (req, res) => answer(res, await queries.datasetRead(req.params.id)));
  app.post('/dataset/list', express.json(), async (_req, res) => answer(res, await queries.datasetList()));
  app.get('/connector/read/:id', async (req, res) => answer(res, await queries.connectorRead(req.params.id)));
  app.post('/connector/list', express.json(), async (_req, res) => answer(res, await queries.connectorList()));
  return listenFloor(app, pool);
}

/** The same routes on a bare node:http handler: no router, no middleware, the body read and dropped. */
export async function startNodeFloor(databaseUrl: string): Promise<Floor> {
  const pool = floorPool(databaseUrl);
  const routeOf = floorRoutes(floorQueries(pool));
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const work = routeOf(req.method, req.url ?? '/');
    req.resume();
    if (!work) return send(res, 404, { error: 'not found' });
    work.then(
      (body) => (body === undefined ? send(res, 404, { error: 'not found' }) : send(res, 200, body)),
      () => send(res, 500, { error: 'failed' }),
    );
  };
  return listenFloor(handler, pool);
}

/** The routes every floor serves: reads by id and lists, each a function of the request. */
function floorRoutes(queries: ReturnType<typeof floorQueries>) {
  const reads: Record<string, (id: string) => Promise<unknown>> = {
    '/template/read/': queries.templateRead,
    '/dataset/read/': queries.datasetRead,
    '/connector/read/': queries.connectorRead,
  };
  const lists: Record<string, () => Promise<unknown>> = { '/template/list': queries.templateList, '/dataset/list': queries.datasetList, '/connector/list': queries.connectorList };
  /** The work a request asks for (its answer's body, undefined for 404), or undefined for a route no floor serves. */
  return (method: string | undefined, url: string): Promise<unknown> | undefined => {
    if (method === 'GET') {
      const slash = url.lastIndexOf('/');
      const read = reads[url.slice(0, slash + 1)];
      return read?.(decodeURIComponent(url.slice(slash + 1)));
    }
    return method === 'POST' ? lists[url]?.() : undefined;
  };
}

/**
 * The same routes on a node:http server that keeps each answer's `result` serialised after its first
 * read, by method and URL, and sends it in a fresh envelope (ts, resmsgid) per request, as the
 * gateway's fast path does. It never forgets (no change reaches it): a floor for kept answers only.
 * Concurrent first reads of one URL each run the SQL, as a plain server's would.
 */
export async function startMemoryFloor(databaseUrl: string): Promise<Floor> {
  const pool = floorPool(databaseUrl);
  const routeOf = floorRoutes(floorQueries(pool));
  const kept = new Map<string, Buffer>();
  const sendKept = (res: http.ServerResponse, result: Buffer) => {
    const head = `{"id":"floor","ver":"v2","ts":"${new Date().toISOString()}","params":{"status":"SUCCESS","resmsgid":"${randomUUID()}"},"responseCode":"OK","result":`;
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(head) + result.length });
    res.write(head);
    res.end(result);
  };
  const fail = (res: http.ServerResponse, status: number) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(status === 404 ? '{"error":"not found"}' : '{"error":"failed"}');
  };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    req.resume();
    const url = req.url ?? '/';
    const key = `${req.method ?? ''} ${url}`;
    const found = kept.get(key);
    if (found) return sendKept(res, found);
    const work = routeOf(req.method, url);
    if (!work) return fail(res, 404);
    work.then(
      (body) => {
        if (body === undefined) return fail(res, 404);
        const result = Buffer.from(`${JSON.stringify((body as { result: unknown }).result)}}\n`);
        kept.set(key, result);
        sendKept(res, result);
      },
      () => fail(res, 500),
    );
  };
  return listenFloor(handler, pool);
}

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
