// Hostile values against POST /v2/template/query/{template_id} (issue 6: "injection-proof";
// reference §3.7 lists the original's SQL injection as a weakness to beat). Every request field,
// the envelope's and the path's included, gets quotes, `; DROP`, comments, unicode (RTL, zero-width,
// NUL), huge numbers, and arrays or objects where strings go. Each must either fail validation with
// a 400 (or 404) failure envelope, or be bound as data and give the ordinary result; never a 500.
// Afterwards the database is exactly as before. Templates whose own SQL tries to write are refused
// (read-only, single statement) and change nothing either.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope } from '../support/api.js';
import { seedDataset, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { DAY_END, DAY_START, EVENTS, OTHER_EVENTS, SALES_SCHEMA_OVERRIDES, SQL, JSON_TEMPLATES } from '../support/template-run.js';

let gw: TestGateway;

const SALES = 'inj_sales';
const OTHER = 'inj_other';
const SQL_TEMPLATE = 'inj_sql';
const JSON_TEMPLATE = 'inj_json';
const API_ID = 'api.query.template.query';
// Statements get 2 s: long enough for every honest query here, short enough for pg_sleep(30).
const QUERY_TIMEOUT_MS = 2000;

let snapshotBefore: Snapshot;
/** What each template gives for the clean request: the result any accepted hostile value must give too. */
const baseline: Record<string, unknown[]> = {};

beforeAll(async () => {
  gw = await startTestGateway({ QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS) });
  await Promise.all([seedDataset(gw, SALES, 'Live', SALES_SCHEMA_OVERRIDES), seedDataset(gw, OTHER, 'Live')]);
  await ingestOk(SALES, EVENTS, 'inj-sales-1');
  await ingestOk(OTHER, OTHER_EVENTS, 'inj-other-1');
  await createTemplateOk('Inj Sql', 'sql', SQL.raw);
  await createTemplateOk('Inj Json', 'json', JSON_TEMPLATES.scan);
  for (const id of [SQL_TEMPLATE, JSON_TEMPLATE]) {
    const response = await run(id, cleanRequest());
    expect(response.status).toBe(200);
    baseline[id] = response.body.result as unknown[];
  }
  expect((baseline[SQL_TEMPLATE] as Json[]).map((row) => row.id)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6']);
  snapshotBefore = await snapshot();
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

async function ingestOk(datasetId: string, data: Json[], msgid: string): Promise<void> {
  const response = await gw.http.post(`/v2/data/in/${encodeURIComponent(datasetId)}`).send({ id: 'api.data.in', ver: 'v2', ts: new Date().toISOString(), params: { msgid }, data });
  if (response.status !== 200) throw new Error(`ingest into ${datasetId} failed with ${response.status}: ${JSON.stringify(response.body)}`);
}

async function createTemplateOk(name: string, queryType: 'sql' | 'json', query: string): Promise<string> {
  const response = await gw.http.post('/v2/template/create').send(envelope('api.query.template.create', { template_name: name, query_type: queryType, query }));
  if (response.status !== 200) throw new Error(`creating template "${name}" failed with ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.result.template_id as string;
}

function cleanRequest(): Json {
  return { startdate: DAY_START, enddate: DAY_END, dataset: SALES, aggregationLevel: 'hour', limit: 100 };
}

function run(templateId: string, request: unknown, over: Json = {}): Promise<Response> {
  return gw.http
    .post(`/v2/template/query/${encodeURIComponent(templateId)}`)
    .set('content-type', 'application/json')
    .send({ ...envelope(API_ID, request), ...over });
}

/** Sends exact JSON text (for numbers JavaScript cannot hold, such as 2^63). */
function runRaw(templateId: string, text: string): Promise<Response> {
  return gw.http
    .post(`/v2/template/query/${encodeURIComponent(templateId)}`)
    .set('content-type', 'application/json')
    .send(text);
}

type Outcome = 'refused' | 'not found' | 'bound';

/**
 * The response is a failure envelope (400 for refused, 404 for not found) or the template's
 * ordinary result (bound: the value was taken as data and changed nothing about the query).
 */
function expectOutcome(response: Response, outcome: Outcome, templateId: string, what: string): void {
  const summary = { what, status: response.status, code: response.body?.error?.code, message: response.body?.error?.message };
  if (outcome === 'bound') {
    expect(summary).toMatchObject({ status: 200 });
    expect(response.body.result).toStrictEqual(baseline[templateId]);
    return;
  }
  const status = outcome === 'refused' ? 400 : 404;
  expect(summary).toMatchObject({ status });
  expect(response.body).toMatchObject({
    id: API_ID,
    params: { status: 'FAILED' },
    responseCode: outcome === 'refused' ? 'BAD_REQUEST' : 'NOT_FOUND',
    error: { code: expect.any(String), message: expect.any(String), trace: '' },
    result: {},
  });
}

function expectStatusIn(response: Response, statuses: number[], what: string): void {
  const got = { what, status: response.status, code: response.body?.error?.code, message: response.body?.error?.message };
  if (!statuses.includes(response.status)) expect(got).toEqual({ what, status: statuses.join(' or '), code: 'any', message: 'any' });
}

interface Snapshot {
  relations: unknown[];
  counts: Record<string, number>;
  views: unknown[];
  functions: unknown[];
  events: string;
  templates: string;
  datasets: string;
}

/** Everything an injection could change: relations, row counts, view definitions, functions, contents. */
async function snapshot(): Promise<Snapshot> {
  const relations = await gw.sql(
    `SELECT table_schema, table_name, table_type FROM information_schema.tables
      WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
  );
  const counts: Record<string, number> = {};
  for (const table of ['events', 'datasets', 'query_templates', 'failed_events', 'event_dedup', 'master_records']) {
    counts[table] = (await gw.sql<{ n: number }>(`SELECT count(*)::int AS n FROM public.${table}`)).rows[0]!.n;
  }
  const views = await gw.sql(`SELECT viewname, definition FROM pg_views WHERE schemaname = 'datasources' ORDER BY 1`);
  const functions = await gw.sql(
    `SELECT p.proname, pg_get_functiondef(p.oid) AS definition FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname IN ('datasources', 'public') ORDER BY 1, 2`,
  );
  const digest = async (sql: string) => (await gw.sql<{ d: string }>(sql)).rows[0]!.d;
  return {
    relations: relations.rows,
    counts,
    views: views.rows,
    functions: functions.rows,
    events: await digest(`SELECT md5(coalesce(string_agg(id::text || dataset_id || payload::text || event_time::text, '|' ORDER BY id), '')) AS d FROM public.events`),
    templates: await digest(`SELECT md5(coalesce(string_agg(template_id || template_name || query || query_type, '|' ORDER BY template_id), '')) AS d FROM public.query_templates`),
    datasets: await digest(`SELECT md5(coalesce(string_agg(dataset_id || stage || status || name, '|' ORDER BY dataset_id, stage), '')) AS d FROM public.datasets`),
  };
}

// ---------------------------------------------------------------------------------------------
// Hostile values. Strings that hold SQL or JSON syntax, unicode and control characters, and
// values of the wrong JSON type.

const SQL_TEXT = [
  "'; DROP TABLE events; --",
  "' OR '1'='1",
  '" OR "1"="1',
  "'); DELETE FROM events; --",
  '/* */ UNION SELECT * FROM datasets --',
  "\\'; DROP TABLE query_templates; --",
  '$1; DROP VIEW datasources.inj_sales',
  "{{DATASET}}'; DROP TABLE events; --",
];
const JSON_TEXT = ['", "queryType": "scan", "dataSource": "datasets', '"}]} , {"filter": {"type": "javascript"', '\\u0022 OR 1=1'];
const UNICODE = ['\u202E2026-03-02', '2026-03-02\u200B', '2026-03-02\u0000', '\u0000', '\uFEFF', '🙂💥', '\u0085\u2028\u2029', 'ｓｅｌｅｃｔ'];
const WRONG_TYPES: [string, unknown][] = [
  ['an array', ['2026-03-02']],
  ['an object', { $gt: '' }],
  ['1e308', 1e308],
  ['-1e308', -1e308],
  ['true', true],
  ['null', null],
  ['a long string', 'x'.repeat(10_000)],
  ['an empty string', ''],
];

/** Hostile date values: pure hostile text, a real date with hostile text added, wrong types. */
function dateValues(day: string): [string, unknown][] {
  return [
    ...[...SQL_TEXT, ...JSON_TEXT, ...UNICODE].map((value): [string, unknown] => [JSON.stringify(value).slice(0, 60), value]),
    ...[...SQL_TEXT, ...UNICODE].map((value): [string, unknown] => [`${day} + ${JSON.stringify(value).slice(0, 50)}`, `${day}${value}`]),
    [`${day} with a comment inside`, `${day} /* */ 00:00:00`],
    [`${day} with a trailing SQL comment`, `${day}T00:00:00Z --`],
    [`${day} with a quote and OR`, `${day}T00:00:00Z' OR '1'='1`],
    ...WRONG_TYPES,
  ];
}

/** Dataset ids: a string is looked up as a name (never found here); anything else fails the schema. */
const DATASET_STRINGS = [
  ...SQL_TEXT,
  ...JSON_TEXT,
  `x"; DROP VIEW datasources."${SALES}"; --`,
  `${SALES}"; DROP VIEW datasources."${SALES}"; --`,
  `${SALES}'; DROP TABLE events; --`,
  `${SALES}" --`,
  `${SALES}/* */`,
  `${SALES} OR 1=1`,
  `datasources.${SALES}`,
  `"datasources"."${SALES}"`,
  'public.events',
  `\u202E${SALES}`,
  `${SALES}\u200B`,
  `${SALES}\u0000`,
  `${SALES}\u0000'; DROP TABLE events; --`,
  '🙂💥',
  '%',
  '_',
  '*',
];

// ---------------------------------------------------------------------------------------------

describe('hostile values in every field of a template run', () => {
  describe.each([
    ['a sql template', SQL_TEMPLATE],
    ['a json template', JSON_TEMPLATE],
  ])('on %s', (_, templateId) => {
    // A value the date parser reads as the very day it starts with was bound as that date: the
    // result is the clean request's. Anything else must be refused.
    it.each(dateValues(DAY_START.slice(0, 10)))('refuses startdate %s with a 400 envelope, or binds it as the date it names', async (what, value) => {
      const response = await run(templateId, { ...cleanRequest(), startdate: value });
      expectOutcome(response, response.status === 200 ? 'bound' : 'refused', templateId, what);
    });

    it.each(dateValues(DAY_END.slice(0, 10)))('refuses enddate %s with a 400 envelope, or binds it as the date it names', async (what, value) => {
      const response = await run(templateId, { ...cleanRequest(), enddate: value });
      expectOutcome(response, response.status === 200 ? 'bound' : 'refused', templateId, what);
    });

    it.each(DATASET_STRINGS.map((value) => [JSON.stringify(value).slice(0, 70), value]))(
      'answers 404 DATA_OUT_SOURCE_NOT_FOUND (or refuses with 400) for dataset %s, never a 500 nor another dataset',
      async (what, value) => {
        const response = await run(templateId, { ...cleanRequest(), dataset: value });
        expectStatusIn(response, [400, 404], what);
        expectOutcome(response, response.status === 404 ? 'not found' : 'refused', templateId, what);
        if (response.status === 404) expect(response.body.error.code).toBe('DATA_OUT_SOURCE_NOT_FOUND');
      },
    );

    it.each([`${SALES}\u0000`, `${SALES}\u0000'; DROP TABLE events; --`, '\u0000'])('answers 404 DATA_OUT_SOURCE_NOT_FOUND for dataset %j, which holds a NUL no dataset id can', async (value) => {
      const response = await run(templateId, { ...cleanRequest(), dataset: value });
      expectStatusIn(response, [404], JSON.stringify(value));
      expectOutcome(response, 'not found', templateId, JSON.stringify(value));
      expect(response.body.error.code).toBe('DATA_OUT_SOURCE_NOT_FOUND');
    });

    it.each(WRONG_TYPES)('refuses dataset as %s with a 400 envelope', async (what, value) => {
      expectOutcome(await run(templateId, { ...cleanRequest(), dataset: value }), 'refused', templateId, what);
    });

    it.each([
      ...[...SQL_TEXT, ...JSON_TEXT, ...UNICODE].map((value): [string, unknown] => [JSON.stringify(value).slice(0, 60), value]),
      ['hour + SQL', "hour'; DROP TABLE events; --"],
      ['hour + NUL', 'hour\u0000'],
      ['hour + zero-width space', 'hour\u200B'],
      ...WRONG_TYPES,
    ])('refuses aggregationLevel %s with a 400 envelope', async (what, value) => {
      expectOutcome(await run(templateId, { ...cleanRequest(), aggregationLevel: value }), 'refused', templateId, what);
    });

    it.each([
      ...[...SQL_TEXT, ...UNICODE].map((value): [string, unknown] => [JSON.stringify(value).slice(0, 60), value]),
      ['10 + SQL', "10'; DROP TABLE events; --"],
      ['a numeric string', '100'],
      ['1e308', 1e308],
      ['-1e308', -1e308],
      ['2^53 + 2', 2 ** 53 + 2],
      ['-1', -1],
      ['0', 0],
      ['0.5', 0.5],
      ['an array', [100]],
      ['an object', { $gt: 0 }],
      ['true', true],
    ])('refuses limit %s with a 400 envelope', async (what, value) => {
      expectOutcome(await run(templateId, { ...cleanRequest(), limit: value }), 'refused', templateId, what);
    });

    it.each(['9223372036854775808', '9223372036854775807', '18446744073709551616', '1' + '0'.repeat(400), '1e400'])('refuses limit %s (written as JSON text) with a 400 envelope', async (text) => {
      const body = JSON.stringify(envelope(API_ID, cleanRequest())).replace('"limit":100', `"limit":${text}`);
      expect(body).toContain(`"limit":${text}`);
      expectOutcome(await runRaw(templateId, body), 'refused', templateId, text.slice(0, 30));
    });

    it('takes limit 1e2 (a JSON number that is the integer 100) as data', async () => {
      const body = JSON.stringify(envelope(API_ID, cleanRequest())).replace('"limit":100', '"limit":1e2');
      expectOutcome(await runRaw(templateId, body), 'bound', templateId, '1e2');
    });

    it.each([
      ['a request field it does not know', { ...cleanRequest(), query: 'DELETE FROM events' }],
      ['request as an array', [cleanRequest()]],
      ['request as a string', "'; DROP TABLE events; --"],
      ['request as null', null],
    ])('refuses %s with a 400 envelope', async (what, request) => {
      expectOutcome(await run(templateId, request), 'refused', templateId, what);
    });

    it.each([
      ['id', { id: "api.query.template.query'; DROP TABLE events; --" }],
      ['id as an object', { id: { $ne: null } }],
      ['params with a field it does not know', { params: { msgid: 'm', sql: 'DROP TABLE events' } }],
      ['params.msgid as an object', { params: { msgid: { $ne: null } } }],
      ['an envelope field it does not know', { query: 'DROP TABLE events' }],
      ['ver as an array', { ver: ['v2'] }],
      ['ts as a number', { ts: 1e308 }],
    ])('refuses envelope %s with a 400 envelope', async (what, over) => {
      expectOutcome(await run(templateId, cleanRequest(), over), 'refused', templateId, what);
    });

    it.each([...SQL_TEXT, ...UNICODE, '\u202E\u200B\u0000'])('takes params.msgid %j as data and echoes it unchanged', async (msgid) => {
      const response = await run(templateId, cleanRequest(), { params: { msgid } });
      expectOutcome(response, 'bound', templateId, JSON.stringify(msgid));
      expect(response.body.params.msgid).toBe(msgid);
    });

    it.each(["'; DROP", "ver'--", '\u202E\u0000'])('takes ver %j and a hostile ts as data', async (ver) => {
      const response = await run(templateId, cleanRequest(), { ver, ts: "'; DROP TABLE events; --" });
      expectOutcome(response, 'bound', templateId, JSON.stringify(ver));
    });
  });

  it.each([
    "x'; DROP TABLE query_templates; --",
    'x" OR "1"="1',
    `${SQL_TEMPLATE}' OR '1'='1`,
    `${SQL_TEMPLATE}\u200B`,
    `\u202E${SQL_TEMPLATE}`,
    `${SQL_TEMPLATE}\u0000`,
    `${SQL_TEMPLATE}/* */`,
    '%',
    '_',
    '../../template/delete/inj_sql',
    '🙂💥',
  ])('answers 404 QUERY_TEMPLATE_NOT_EXISTS (or refuses with 400) for template id %j in the path', async (templateId) => {
    const response = await run(templateId, cleanRequest());
    expectStatusIn(response, [400, 404], templateId);
    expectOutcome(response, response.status === 404 ? 'not found' : 'refused', SQL_TEMPLATE, templateId);
    if (response.status === 404) expect(response.body.error.code).toBe('QUERY_TEMPLATE_NOT_EXISTS');
  });

  it('refuses a template id longer than 120 characters in the path with a 400 envelope', async () => {
    expectOutcome(await run(`${'x'.repeat(121)}' OR 1=1`, cleanRequest()), 'refused', SQL_TEMPLATE, 'long id');
  });

  it('still answers the clean request exactly as before', async () => {
    for (const id of [SQL_TEMPLATE, JSON_TEMPLATE]) expectOutcome(await run(id, cleanRequest()), 'bound', id, 'clean');
  });

  it('leaves the database unchanged: relations, row counts, views, functions and contents', async () => {
    expect(await snapshot()).toEqual(snapshotBefore);
  });
});

describe('templates whose own SQL tries to write or escape', () => {
  const PWNED = join(tmpdir(), `template-injection-${randomUUID()}`);
  let index = 0;
  async function createAndRun(query: string): Promise<Response> {
    index += 1;
    const id = await createTemplateOk(`Inj Writer ${index}`, 'sql', query);
    return run(id, cleanRequest());
  }

  /** Nothing changed (templates aside), and the template was refused with a 400 failure envelope. */
  async function expectRefusedAndUnchanged(response: Response, message: RegExp): Promise<void> {
    const after = await snapshot();
    // Creating the writer templates adds rows to query_templates; everything else must be as before.
    expect({ ...after, counts: { ...after.counts, query_templates: 0 }, templates: '' }).toEqual({
      ...snapshotBefore,
      counts: { ...snapshotBefore.counts, query_templates: 0 },
      templates: '',
    });
    expect({ status: response.status, code: response.body.error?.code, message: response.body.error?.message }).toEqual({
      status: 400,
      code: 'DATA_OUT_INVALID_INPUT',
      message: expect.stringMatching(message),
    });
    expect(response.body).toMatchObject({ params: { status: 'FAILED' }, responseCode: 'BAD_REQUEST', result: {} });
  }

  it.each([
    ['a DELETE through the datasource', 'DELETE FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}'],
    ['a DELETE from the event store', 'DELETE FROM public.events WHERE event_time >= {{STARTDATE}} AND event_time < {{ENDDATE}} AND EXISTS (SELECT 1 FROM {{DATASET}})'],
    ['an UPDATE of the dataset registry', "UPDATE public.datasets SET name = 'pwned' WHERE {{STARTDATE}} < {{ENDDATE}} AND EXISTS (SELECT 1 FROM {{DATASET}})"],
    [
      'an INSERT into the templates',
      "INSERT INTO public.query_templates (template_id, template_name, query, query_type, created_by, updated_by) SELECT 'pwned', 'pwned', 'x', 'sql', 'x', 'x' FROM {{DATASET}} WHERE {{STARTDATE}} < {{ENDDATE}} LIMIT 1",
    ],
    ['a DELETE inside a WITH', 'WITH gone AS (DELETE FROM public.events RETURNING 1) SELECT count(*) AS n FROM gone, {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}'],
    ['a SELECT ... FOR UPDATE lock', 'SELECT "id" FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}} FOR UPDATE'],
    ['nextval on a sequence', `SELECT nextval(pg_get_serial_sequence('public.events', 'id')) AS n FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}`],
  ])('refuses %s as read-only and changes nothing', async (_, query) => {
    // Two layers refuse these: the read-only transaction, and before it the query role's rights
    // (it may only SELECT from the views), whichever PostgreSQL checks first.
    await expectRefusedAndUnchanged(await createAndRun(query), /read-only|read only|permission denied/i);
  });

  it.each([
    ['SELECT; DELETE', 'SELECT * FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}; DELETE FROM public.events'],
    ['SELECT; COMMIT; DROP', 'SELECT * FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}; COMMIT; DROP TABLE public.events'],
    ['SELECT; SET read-write; DELETE', 'SELECT * FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}; SET TRANSACTION READ WRITE; DELETE FROM public.events'],
  ])('refuses a second statement (%s) and changes nothing', async (_, query) => {
    await expectRefusedAndUnchanged(await createAndRun(query), /multiple commands|statement/i);
  });

  it.each([
    ['DROP VIEW of the datasource', 'DROP VIEW {{DATASET}} -- {{STARTDATE}} {{ENDDATE}}'],
    ['TRUNCATE of the event store', 'TRUNCATE public.events -- {{DATASET}} {{STARTDATE}} {{ENDDATE}}'],
    ['COPY to a program', `COPY (SELECT 1) TO PROGRAM 'touch ${PWNED}' -- {{DATASET}} {{STARTDATE}} {{ENDDATE}}`],
  ])('refuses a statement with no place for the values (%s) with a 400 and changes nothing', async (_, query) => {
    await expectRefusedAndUnchanged(await createAndRun(query), /./);
    expect(existsSync(PWNED)).toBe(false);
  });

  // A template reads what its datasource views show and nothing else: not the gateway's own tables
  // (sessions, API keys, audit, other datasets' raw events), not server files, not another role.
  const WINDOW = '{{STARTDATE}} < {{ENDDATE}} -- {{DATASET}}';
  it.each([
    ['the session store', `SELECT sid, sess::text AS s FROM public.session WHERE ${WINDOW}`],
    ['API keys', `SELECT name, key_hash FROM public.api_keys WHERE ${WINDOW}`],
    ['the raw event store (every dataset)', `SELECT dataset_id, payload::text AS p FROM public.events WHERE ${WINDOW}`],
    ['the audit trail', `SELECT * FROM public.audit_records WHERE ${WINDOW}`],
    ['the template table by unqualified name after resetting search_path', `SELECT set_config('search_path', 'public', true) AS p, (SELECT count(*) FROM query_templates) AS n WHERE ${WINDOW}`],
    ['a server file', `SELECT pg_read_file('/etc/hostname') AS f WHERE ${WINDOW}`],
    ['a server folder', `SELECT pg_ls_dir('.') AS f WHERE ${WINDOW}`],
    ['another role, taken mid-statement', `SELECT set_config('role', 'postgres', true) AS r, pg_read_file('/etc/hostname') AS f WHERE ${WINDOW}`],
    ['dynamic SQL through query_to_xml', `SELECT query_to_xml('SELECT * FROM public.session', true, false, '')::text AS x WHERE ${WINDOW}`],
  ])('refuses a template that reads %s, and changes nothing', async (_, query) => {
    await expectRefusedAndUnchanged(await createAndRun(query), /permission denied|must be superuser|not allowed|does not exist/i);
  });

  it('refuses a template that tries to switch its transaction to read-write, and changes nothing', async () => {
    const query = 'SELECT set_config(\'transaction_read_only\', \'off\', true) AS flag, * FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}';
    await expectRefusedAndUnchanged(await createAndRun(query), /./);
  });

  it('cancels a template that runs longer than the statement timeout with 503 DATA_OUT_QUERY_TIMEOUT', async () => {
    const started = Date.now();
    const response = await createAndRun('SELECT pg_sleep(30), * FROM {{DATASET}} WHERE "__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}');
    expect(Date.now() - started).toBeLessThan(QUERY_TIMEOUT_MS + 5000);
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 503, code: 'DATA_OUT_QUERY_TIMEOUT' });
  });

  it('still answers the clean request exactly as before, and the event store holds what it held', async () => {
    for (const id of [SQL_TEMPLATE, JSON_TEMPLATE]) expectOutcome(await run(id, cleanRequest()), 'bound', id, 'clean');
    const after = await snapshot();
    expect(after.events).toBe(snapshotBefore.events);
    expect(after.counts.events).toBe(snapshotBefore.counts.events);
  });
});
