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

// The dashboard page's floor (bench/dashboard.ts): the SQL the gateway runs for the page, in the same
// three waves (the page of datasets; then what the page shows of them, at once; then the alert rules'
// channels), each statement the gateway's (its tables, conditions and order) reading only the
// columns the answer needs, and the answer built by hand in the page's shape.
const DASHBOARD_SQL = {
  page: `SELECT "dataset_id", "stage", "updated_date", "name", "status", "connectors_config" FROM "datasets" WHERE "status" IN ($1)
         ORDER BY "stage" DESC, "updated_date" DESC, "dataset_id" ASC LIMIT $2`,
  datasources: `SELECT c.relname AS table_name FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'datasources' AND c.relname = ANY($1::text[]) AND c.relkind IN ('r', 'v', 'm', 'p', 'f')`,
  outcomes: `SELECT dataset_id, NULL::text AS stage, count(*)::float8 AS n FROM events WHERE dataset_id = ANY($1::text[]) AND arrival_time >= $2 AND arrival_time < $3 GROUP BY dataset_id
             UNION ALL
             SELECT dataset_id, stage, count(*)::float8 FROM failed_events WHERE dataset_id = ANY($1::text[]) AND arrival_time >= $2 AND arrival_time < $3 GROUP BY dataset_id, stage`,
  counters: `SELECT dataset_id, sum(received) AS received, sum(processed) AS processed, sum(failed) AS failed
               FROM (SELECT dataset_id, received, processed, failed FROM ingestion_counters WHERE dataset_id = ANY($1::text[])
                     UNION ALL
                     SELECT dataset_id, received, processed, failed FROM ingestion_counter_deltas WHERE dataset_id = ANY($1::text[])) AS counted
              GROUP BY dataset_id`,
  connectors: `SELECT id, connector_id, name, status FROM connector_registry WHERE id = ANY($1::text[]) OR (connector_id = ANY($1::text[]) AND status = 'Live')`,
  rules: `SELECT id, labels, context, name, status, channel_ids::text[] AS "channelIds" FROM alert_rules
           WHERE labels->>'dataset' = ANY($1::text[]) OR context->>'datasetId' = ANY($1::text[]) ORDER BY created_date DESC, id ASC`,
  channels: 'SELECT id, name FROM notification_channels WHERE id = ANY($1::uuid[])',
};

/** Observability is Unhealthy above this share of refused events (the gateway's default, the original's 5 %). */
const FAILURE_THRESHOLD_PERCENT = 5;

/**
 * The dashboard page (a GraphQL POST whatever its body says: the page of `first` Live datasets with
 * health, ingestion counts, connectors and alert rules) as a bare express + pg handler: the floor
 * of the page executed. The answer is the gateway's, field for field, so the bench can check both.
 */
export async function startDashboardFloor(databaseUrl: string, first: number): Promise<Floor> {
  const pool = floorPool(databaseUrl);
  const upper = (value: string) => value.toUpperCase();
  const page = async (): Promise<unknown> => {
    type DatasetRow = { dataset_id: string; stage: string; name: string; status: string; connectors_config: { id: string; connector_id: string }[] | null };
    const datasets = (await pool.query<DatasetRow>({ name: 'floor_dash_page', text: DASHBOARD_SQL.page, values: ['Live', first] })).rows;
    const ids = datasets.map((row) => row.dataset_id);
    const connectorIds = [...new Set(datasets.flatMap((row) => (row.connectors_config ?? []).map((entry) => entry.connector_id)))];
    const since = new Date(Date.now() - 86_400_000);
    const [datasources, outcomes, counters, connectors, rules] = await Promise.all([
      pool.query<{ table_name: string }>({ name: 'floor_dash_datasources', text: DASHBOARD_SQL.datasources, values: [ids] }),
      pool.query<{ dataset_id: string; stage: string | null; n: number }>({ name: 'floor_dash_outcomes', text: DASHBOARD_SQL.outcomes, values: [ids, since, new Date()] }),
      pool.query<{ dataset_id: string; received: string; processed: string; failed: string }>({ name: 'floor_dash_counters', text: DASHBOARD_SQL.counters, values: [ids] }),
      pool.query<{ id: string; connector_id: string; name: string; status: string }>({ name: 'floor_dash_connectors', text: DASHBOARD_SQL.connectors, values: [connectorIds] }),
      pool.query<{ labels: Record<string, string>; context: Record<string, string>; name: string; status: string; channelIds: string[] }>({
        name: 'floor_dash_rules',
        text: DASHBOARD_SQL.rules,
        values: [ids],
      }),
      pool.query('SELECT 1'), // the event pipeline's probe: the embedded event store is the database
    ]);
    const channelIds = [...new Set(rules.rows.flatMap((rule) => rule.channelIds))];
    const channels = await pool.query<{ id: string; name: string }>({ name: 'floor_dash_channels', text: DASHBOARD_SQL.channels, values: [channelIds] });

    const queryable = new Set(datasources.rows.map((row) => row.table_name));
    const refused = new Map<string, { stored: number; failed: number }>();
    for (const row of outcomes.rows) {
      const figures = refused.get(row.dataset_id) ?? { stored: 0, failed: 0 };
      if (row.stage === null) figures.stored += row.n;
      else figures.failed += row.n;
      refused.set(row.dataset_id, figures);
    }
    const countsOf = new Map(counters.rows.map((row) => [row.dataset_id, row]));
    const connectorOf = new Map<string, { name: string; status: string }>();
    for (const row of connectors.rows) {
      connectorOf.set(row.id, { name: row.name, status: upper(row.status) });
      if (row.status === 'Live') connectorOf.set(row.connector_id, { name: row.name, status: upper(row.status) });
    }
    const channelName = new Map(channels.rows.map((row) => [row.id, row.name]));
    const rulesOf = new Map<string, { name: string; status: string; channels: { name: string }[] }[]>();
    for (const rule of rules.rows) {
      const datasetId = rule.labels.dataset ?? rule.context.datasetId;
      if (datasetId === undefined) continue;
      const list = rulesOf.get(datasetId) ?? [];
      list.push({ name: rule.name, status: upper(rule.status), channels: rule.channelIds.map((id) => ({ name: channelName.get(id)! })) });
      rulesOf.set(datasetId, list);
    }
    const nodes = datasets.map((row) => {
      const figures = refused.get(row.dataset_id) ?? { stored: 0, failed: 0 };
      const total = figures.stored + figures.failed;
      const processing = total > 0 && (figures.failed / total) * 100 > FAILURE_THRESHOLD_PERCENT ? 'UNHEALTHY' : 'HEALTHY';
      const query = queryable.has(row.dataset_id) ? 'HEALTHY' : 'UNHEALTHY';
      const counts = countsOf.get(row.dataset_id);
      return {
        id: Buffer.from(`Dataset:${row.dataset_id}:${row.stage}`).toString('base64url'),
        datasetId: row.dataset_id,
        name: row.name,
        status: upper(row.status),
        health: {
          status: processing === 'HEALTHY' && query === 'HEALTHY' ? 'HEALTHY' : 'UNHEALTHY',
          details: [
            { category: 'PROCESSING', status: processing },
            { category: 'QUERY', status: query },
          ],
        },
        ingestion: { received: Number(counts?.received ?? 0), processed: Number(counts?.processed ?? 0), failed: Number(counts?.failed ?? 0) },
        connectors: (row.connectors_config ?? []).map((entry) => ({ instanceId: entry.id, connector: connectorOf.get(entry.connector_id) ?? null })),
        alertRules: rulesOf.get(row.dataset_id) ?? [],
      };
    });
    return { data: { datasets: { nodes } } };
  };
  const app = express();
  app.post('/graphql', express.json(), async (_req, res) => {
    try {
      res.json(await page());
    } catch (error) {
      res.status(500).json({ errors: [{ message: (error as Error).message }] });
    }
  });
  return listenFloor(app, pool);
}
