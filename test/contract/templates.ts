// Query templates (contract 2.3, 4.3, 7, 8), written once for both transports: create with its
// naming and placeholder rules, read, list (filter, sort, the page maximum), update rules a-d and
// delete. The scenarios of one transport share a database: every scenario uses names of its own.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { JSON_QUERY, SQL_QUERY } from '../support/api.js';
import { sleep } from '../support/datasets.js';
import {
  countStoredTemplates,
  expectTemplateNotStored,
  ISO_UTC,
  JSON_QUERY_OBJECT,
  seedSortkeyTemplates,
  SORTKEY_ASCENDING,
  SORTKEY_IDS,
  sortkeyIdsIn,
  type TemplateSortField,
} from '../support/templates.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export type QueryType = 'sql' | 'json';

/** A template as contract 2.3 spells it. */
export interface TemplateRecord {
  template_id: string;
  template_name: string;
  query: string;
  query_type: QueryType;
  created_by: string;
  updated_by: string;
  created_date: string;
  updated_date: string;
}

/** A query is text; a json query may also be given as the object itself. */
export type TemplateQuery = string | Record<string, unknown>;

export interface ListRequest {
  filters?: { query_type?: QueryType };
  sortBy?: { field: TemplateSortField; order?: 'asc' | 'desc' }[];
  limit?: number;
}

export interface TemplatesDriver {
  create(template: { template_name: string; query_type: QueryType; query: TemplateQuery }): Promise<Outcome<{ template_id: string; template_name: string; message: string }>>;
  read(id: string): Promise<Outcome<TemplateRecord>>;
  /** One page of templates; every template when `limit` is left out. */
  list(request?: ListRequest): Promise<Outcome<TemplateRecord[]>>;
  update(id: string, changes: { template_name?: string; query_type?: QueryType; query?: TemplateQuery }): Promise<Outcome<{ message: string; templateId: string }>>;
  remove(id: string): Promise<Outcome<{ message: string }>>;
}

const NAME_RULE = /alphanumeric characters and single space/;
const UPDATED = 'Query template updated successfully';

export function templatesScenarios(ctx: SuiteContext<TemplatesDriver>): void {
  const createOk = async (name: string, queryType: QueryType = 'sql', query: TemplateQuery = queryType === 'sql' ? SQL_QUERY : JSON_QUERY) =>
    expectOk(await ctx.driver.create({ template_name: name, query_type: queryType, query })).template_id;
  const readOk = async (id: string) => expectOk(await ctx.driver.read(id));
  const listOk = async (request?: ListRequest) => expectOk(await ctx.driver.list(request));
  const idsOf = (records: TemplateRecord[]) => records.map((record) => record.template_id);
  const notStored = (name: string) => expectTemplateNotStored(ctx.gw, name);

  describe('create', () => {
    it('creates a sql template, answers {template_id, template_name, message} and stores the full record', async () => {
      const before = Date.now();
      const created = expectOk(await ctx.driver.create({ template_name: 'Create Sql One', query_type: 'sql', query: SQL_QUERY }));
      expect(created).toEqual({ template_id: 'create_sql_one', template_name: 'Create Sql One', message: 'The query template has been saved successfully' });

      const stored = await readOk('create_sql_one');
      expect(stored).toMatchObject({ template_id: 'create_sql_one', template_name: 'Create Sql One', query: SQL_QUERY, query_type: 'sql', created_by: 'SYSTEM', updated_by: 'SYSTEM' });
      expect(stored.created_date).toMatch(ISO_UTC);
      expect(stored.updated_date).toMatch(ISO_UTC);
      expect(Date.parse(stored.created_date)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(stored.created_date)).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('derives the id from the name: lower case with underscores ("My Template 1" becomes my_template_1)', async () => {
      expect(await createOk('My Template 1')).toBe('my_template_1');
      expect((await readOk('my_template_1')).template_name).toBe('My Template 1');
    });

    it('refuses an empty name with QUERY_TEMPLATE_INVALID and stores nothing', async () => {
      expectFailure(await ctx.driver.create({ template_name: '', query_type: 'sql', query: SQL_QUERY }), 'QUERY_TEMPLATE_INVALID', NAME_RULE);
      await notStored('');
    });

    it('refuses a name longer than 100 characters with QUERY_TEMPLATE_INVALID, naming the limit, and stores nothing', async () => {
      const name = 'a'.repeat(101);
      expectFailure(
        await ctx.driver.create({ template_name: name, query_type: 'sql', query: SQL_QUERY }),
        'QUERY_TEMPLATE_INVALID',
        /^Template name should contain alphanumeric characters and single space between characters \(at most 100 characters\)$/,
      );
      await notStored(name);
    });

    it.each([
      ['two spaces between words', 'Double  Space'],
      ['a leading space', ' Leading Space'],
      ['a trailing space', 'Trailing Space '],
      ['a character that is not a letter or digit', 'Bad-Name'],
    ])('refuses a name with %s with QUERY_TEMPLATE_INVALID and stores nothing', async (_, name) => {
      expectFailure(await ctx.driver.create({ template_name: name, query_type: 'sql', query: SQL_QUERY }), 'QUERY_TEMPLATE_INVALID', NAME_RULE);
      await notStored(name);
    });

    it('refuses with QUERY_TEMPLATE_INVALID naming the placeholders a sql query lacks, and only those', async () => {
      const outcome = await ctx.driver.create({ template_name: 'Missing Dates', query_type: 'sql', query: 'SELECT * FROM {{DATASET}} LIMIT {{LIMIT}}' });
      expectFailure(outcome, 'QUERY_TEMPLATE_INVALID', /\{\{STARTDATE\}\}/);
      const message = outcome.ok ? '' : outcome.message;
      const missing = message.slice(message.indexOf('missing'));
      expect(missing).toContain('{{STARTDATE}}');
      expect(missing).toContain('{{ENDDATE}}');
      expect(missing).not.toContain('{{DATASET}}');
      await notStored('Missing Dates');
    });

    it('refuses with QUERY_TEMPLATE_INVALID naming {{DATASET}} when a json query lacks it', async () => {
      const query = { queryType: 'timeseries', dataSource: 'fixed', intervals: ['{{STARTDATE}}/{{ENDDATE}}'] };
      expectFailure(await ctx.driver.create({ template_name: 'Missing Dataset Json', query_type: 'json', query }), 'QUERY_TEMPLATE_INVALID', /missing.*\{\{DATASET\}\}/);
      await notStored('Missing Dataset Json');
    });

    it('refuses a query holding a NUL character with QUERY_TEMPLATE_INVALID (not a store failure)', async () => {
      expectFailure(await ctx.driver.create({ template_name: 'Nul In Query', query_type: 'sql', query: `${SQL_QUERY}\u0000` }), 'QUERY_TEMPLATE_INVALID', /NUL/);
      await notStored('Nul In Query');
    });

    it('stores a json query given as an object as JSON text that reads back as the same object', async () => {
      await createOk('Json Object Query', 'json', JSON_QUERY_OBJECT);
      const stored = await readOk('json_object_query');
      expect(stored.query_type).toBe('json');
      expect(typeof stored.query).toBe('string');
      expect(JSON.parse(stored.query)).toEqual(JSON_QUERY_OBJECT);
    });

    it('stores json query text exactly as given', async () => {
      const query = JSON.stringify(JSON_QUERY_OBJECT, null, 2);
      await createOk('Json Text Query', 'json', query);
      expect((await readOk('json_text_query')).query).toBe(query);
    });

    it('accepts a json query with a placeholder in a number position ("limit": {{LIMIT}})', async () => {
      const query = '{"queryType":"scan","dataSource":"{{DATASET}}","intervals":["{{STARTDATE}}/{{ENDDATE}}"],"limit": {{LIMIT}}}';
      await createOk('Json Number Placeholder', 'json', query);
      expect((await readOk('json_number_placeholder')).query).toBe(query);
    });

    it('refuses a json query that is JSON text but not an object with QUERY_TEMPLATE_INVALID', async () => {
      const query = JSON.stringify(['{{DATASET}}', '{{STARTDATE}}', '{{ENDDATE}}']);
      expectFailure(await ctx.driver.create({ template_name: 'Json Array Text', query_type: 'json', query }), 'QUERY_TEMPLATE_INVALID', /json query must be a JSON object/);
      await notStored('Json Array Text');
    });

    it('refuses a json query that is not valid JSON with QUERY_TEMPLATE_INVALID', async () => {
      const query = '{"dataSource": "{{DATASET}}", "intervals": ["{{STARTDATE}}/{{ENDDATE}}"]';
      expectFailure(await ctx.driver.create({ template_name: 'Json Broken Text', query_type: 'json', query }), 'QUERY_TEMPLATE_INVALID', /valid JSON/);
      await notStored('Json Broken Text');
    });

    it('refuses a taken name with QUERY_TEMPLATE_ALREADY_EXISTS, leaving the first template as it was', async () => {
      await createOk('Taken Name');
      const first = await readOk('taken_name');
      expectFailure(await ctx.driver.create({ template_name: 'Taken Name', query_type: 'json', query: JSON_QUERY }), 'QUERY_TEMPLATE_ALREADY_EXISTS', /Taken Name/);
      expect(await readOk('taken_name')).toEqual(first);
    });

    it('refuses a name that differs from a taken one only by case with QUERY_TEMPLATE_ALREADY_EXISTS', async () => {
      await createOk('Case Taken');
      expectFailure(await ctx.driver.create({ template_name: 'CASE TAKEN', query_type: 'sql', query: SQL_QUERY }), 'QUERY_TEMPLATE_ALREADY_EXISTS', /CASE TAKEN/);
      expect((await readOk('case_taken')).template_name).toBe('Case Taken');
    });
  });

  describe('read', () => {
    it('gives the template record: exactly its fields, query_type in lower case', async () => {
      await createOk('Read Full Record', 'json', JSON_QUERY);
      expect(await readOk('read_full_record')).toEqual({
        template_id: 'read_full_record',
        template_name: 'Read Full Record',
        query: JSON_QUERY,
        query_type: 'json',
        created_by: 'SYSTEM',
        updated_by: 'SYSTEM',
        created_date: expect.stringMatching(ISO_UTC),
        updated_date: expect.stringMatching(ISO_UTC),
      });
    });

    it('answers QUERY_TEMPLATE_NOT_EXISTS naming an id that does not exist', async () => {
      expectFailure(await ctx.driver.read('never_created_template'), 'QUERY_TEMPLATE_NOT_EXISTS', /never_created_template/);
    });

    // The service's rule (issue 34; REST's path schema held it before): the same message on both transports.
    it('refuses an id longer than any template has (120 characters) with QUERY_TEMPLATE_INVALID_INPUT, on read, update and delete', async () => {
      const id = 'x'.repeat(121);
      const message = /^template_id is 121 characters long; at most 120 are allowed$/;
      expectFailure(await ctx.driver.read(id), 'QUERY_TEMPLATE_INVALID_INPUT', message);
      expectFailure(await ctx.driver.update(id, { template_name: 'Long Id Rename' }), 'QUERY_TEMPLATE_INVALID_INPUT', message);
      expectFailure(await ctx.driver.remove(id), 'QUERY_TEMPLATE_INVALID_INPUT', message);
      expect(idsOf(await listOk())).not.toContain('long_id_rename');
    });
  });

  describe('list', () => {
    beforeAll(async () => {
      await seedSortkeyTemplates(ctx.gw);
    });

    it('lists every template, each with exactly the fields of its record, when asked for nothing in particular', async () => {
      const records = await listOk();
      expect(records).toHaveLength(await countStoredTemplates(ctx.gw));
      expect(idsOf(records)).toEqual(expect.arrayContaining(SORTKEY_IDS));
      for (const record of records) expect(Object.keys(record).sort()).toEqual(['created_by', 'created_date', 'query', 'query_type', 'template_id', 'template_name', 'updated_by', 'updated_date']);
    });

    it('lists every template given an empty filter and an empty sort list', async () => {
      const records = await listOk({ filters: {}, sortBy: [] });
      expect(records).toHaveLength(await countStoredTemplates(ctx.gw));
    });

    it('lists only templates of the query type the filter gives', async () => {
      const json = await listOk({ filters: { query_type: 'json' } });
      expect(json.length).toBeGreaterThan(0);
      expect(json.length).toBe(await countStoredTemplates(ctx.gw, 'json'));
      for (const record of json) expect(record.query_type).toBe('json');
      expect(idsOf(json)).toContain('sortkey_bravo');

      const sql = await listOk({ filters: { query_type: 'sql' } });
      expect(sql.length).toBe(await countStoredTemplates(ctx.gw, 'sql'));
      for (const record of sql) expect(record.query_type).toBe('sql');
      expect(idsOf(sql)).toEqual(expect.arrayContaining(['sortkey_alpha', 'sortkey_charlie']));
    });

    it.each(Object.keys(SORTKEY_ASCENDING) as TemplateSortField[])('sorts by %s, ascending and descending', async (field) => {
      expect(sortkeyIdsIn(idsOf(await listOk({ sortBy: [{ field, order: 'asc' }] })))).toEqual(SORTKEY_ASCENDING[field]);
      expect(sortkeyIdsIn(idsOf(await listOk({ sortBy: [{ field, order: 'desc' }] })))).toEqual([...SORTKEY_ASCENDING[field]].reverse());
    });

    it('sorts ascending when a sort key gives no order', async () => {
      expect(sortkeyIdsIn(idsOf(await listOk({ sortBy: [{ field: 'updated_date' }] })))).toEqual(SORTKEY_ASCENDING.updated_date);
    });

    it('refuses a page larger than the maximum of 1000 with QUERY_TEMPLATE_INVALID_INPUT', async () => {
      expectFailure(await ctx.driver.list({ limit: 1001 }), 'QUERY_TEMPLATE_INVALID_INPUT', /1000/);
    });

    // The list contract's rules (issue 34; REST's schema held them before), one message on both transports.
    it('refuses a negative page size with QUERY_TEMPLATE_INVALID_INPUT, saying the range', async () => {
      expectFailure(await ctx.driver.list({ limit: -1 }), 'QUERY_TEMPLATE_INVALID_INPUT', /^the page size must be an integer from 0 to 1000 \(got -1\)$/);
    });

    it('refuses more sort keys than templates have fields to sort by (4) with QUERY_TEMPLATE_INVALID_INPUT', async () => {
      const fields: TemplateSortField[] = ['created_date', 'updated_date', 'template_name', 'template_id', 'created_date'];
      expectFailure(
        await ctx.driver.list({ sortBy: fields.map((field) => ({ field })) }),
        'QUERY_TEMPLATE_INVALID_INPUT',
        /^the order has 5 keys; query templates can be ordered by at most 4 fields$/,
      );
      expect(await listOk({ sortBy: fields.slice(0, 4).map((field) => ({ field })) })).toEqual(expect.any(Array));
    });
  });

  describe('update', () => {
    it('renames a template: keeps the id, the query and the creation date, and moves updated_date forward', async () => {
      await createOk('Rename Me');
      const before = await readOk('rename_me');
      await sleep(20);
      expect(expectOk(await ctx.driver.update('rename_me', { template_name: 'Renamed Now' }))).toEqual({ message: UPDATED, templateId: 'rename_me' });

      const after = await readOk('rename_me');
      expect(after).toMatchObject({ template_id: 'rename_me', template_name: 'Renamed Now', query: before.query, query_type: 'sql', updated_by: 'SYSTEM' });
      expect(after.created_date).toBe(before.created_date);
      expect(after.updated_date).toMatch(ISO_UTC);
      expect(Date.parse(after.updated_date)).toBeGreaterThan(Date.parse(before.updated_date));
      expectFailure(await ctx.driver.read('renamed_now'), 'QUERY_TEMPLATE_NOT_EXISTS', /renamed_now/);
    });

    it('changes the query and its type together, as an object or as text kept exactly, and shows the change on read', async () => {
      await createOk('Retype Me');
      const before = await readOk('retype_me');
      await sleep(20);
      expect(expectOk(await ctx.driver.update('retype_me', { query_type: 'json', query: JSON_QUERY_OBJECT }))).toEqual({ message: UPDATED, templateId: 'retype_me' });
      const after = await readOk('retype_me');
      expect(after.query_type).toBe('json');
      expect(JSON.parse(after.query)).toEqual(JSON_QUERY_OBJECT);
      expect(after.template_name).toBe('Retype Me');
      expect(Date.parse(after.updated_date)).toBeGreaterThan(Date.parse(before.updated_date));

      expectOk(await ctx.driver.update('retype_me', { query_type: 'json', query: JSON_QUERY }));
      expect((await readOk('retype_me')).query).toBe(JSON_QUERY);
    });

    it('refuses a new query lacking placeholders with QUERY_TEMPLATE_INVALID_INPUT naming them, and changes nothing (rule a)', async () => {
      await createOk('Update Missing Vars');
      const before = await readOk('update_missing_vars');
      const outcome = await ctx.driver.update('update_missing_vars', { query_type: 'sql', query: 'SELECT * FROM {{DATASET}} WHERE __time > {{STARTDATE}}' });
      expectFailure(outcome, 'QUERY_TEMPLATE_INVALID_INPUT', /missing.*\{\{ENDDATE\}\}/);
      expect(await readOk('update_missing_vars')).toEqual(before);
    });

    it.each([
      ['two spaces between words', 'Name Rule A', 'Two  Spaces'],
      ['a leading space', 'Name Rule B', ' Leading'],
      ['a trailing space', 'Name Rule C', 'Trailing '],
      ['an underscore', 'Name Rule D', 'Under_score'],
    ])('refuses a new name with %s with QUERY_TEMPLATE_INVALID_INPUT, and changes nothing (rule b)', async (_, original, name) => {
      const id = await createOk(original);
      const before = await readOk(id);
      expectFailure(await ctx.driver.update(id, { template_name: name }), 'QUERY_TEMPLATE_INVALID_INPUT', NAME_RULE);
      expect(await readOk(id)).toEqual(before);
    });

    it('refuses a query without its query type with QUERY_TEMPLATE_INVALID_INPUT, and changes nothing (rule c)', async () => {
      await createOk('Query Without Type');
      const before = await readOk('query_without_type');
      expectFailure(await ctx.driver.update('query_without_type', { query: SQL_QUERY.replace('LIMIT {{LIMIT}}', '') }), 'QUERY_TEMPLATE_INVALID_INPUT', /query_type is required/);
      expect(await readOk('query_without_type')).toEqual(before);
    });

    it('refuses a query type without its query with QUERY_TEMPLATE_INVALID_INPUT, and changes nothing (rule d)', async () => {
      await createOk('Type Without Query');
      const before = await readOk('type_without_query');
      expectFailure(await ctx.driver.update('type_without_query', { query_type: 'json' }), 'QUERY_TEMPLATE_INVALID_INPUT', /query is required/);
      expect(await readOk('type_without_query')).toEqual(before);
    });

    it('refuses renaming to a name another template has (in any case) with QUERY_TEMPLATE_ALREADY_EXISTS, and changes nothing', async () => {
      await createOk('Rename Source');
      await createOk('Rename Target');
      const before = await readOk('rename_source');
      expectFailure(await ctx.driver.update('rename_source', { template_name: 'Rename Target' }), 'QUERY_TEMPLATE_ALREADY_EXISTS', /Rename Target/);
      expectFailure(await ctx.driver.update('rename_source', { template_name: 'RENAME TARGET' }), 'QUERY_TEMPLATE_ALREADY_EXISTS', /RENAME TARGET/);
      expect(await readOk('rename_source')).toEqual(before);
      expect((await readOk('rename_target')).template_name).toBe('Rename Target');
    });

    it('answers QUERY_TEMPLATE_NOT_EXISTS naming a template that does not exist, storing nothing', async () => {
      expectFailure(await ctx.driver.update('never_created_update', { template_name: 'Ghost Rename' }), 'QUERY_TEMPLATE_NOT_EXISTS', /never_created_update/);
      await notStored('Ghost Rename');
    });
  });

  describe('delete', () => {
    it('deletes a template with a message naming it, after which it is found nowhere', async () => {
      await createOk('Delete Me Now');
      expect(expectOk(await ctx.driver.remove('delete_me_now'))).toEqual({ message: expect.stringContaining('delete_me_now') });
      expectFailure(await ctx.driver.read('delete_me_now'), 'QUERY_TEMPLATE_NOT_EXISTS', /delete_me_now/);
      await notStored('Delete Me Now');
    });

    it('answers QUERY_TEMPLATE_NOT_EXISTS naming a template that does not exist, also on a second delete', async () => {
      expectFailure(await ctx.driver.remove('never_created_delete'), 'QUERY_TEMPLATE_NOT_EXISTS', /never_created_delete/);
      await createOk('Delete Twice');
      expectOk(await ctx.driver.remove('delete_twice'));
      expectFailure(await ctx.driver.remove('delete_twice'), 'QUERY_TEMPLATE_NOT_EXISTS', /delete_twice/);
    });
  });
}
