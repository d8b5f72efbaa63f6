// Seed helpers for query-template tests: a template in one line (through the REST API, as a user
// would make it), the three templates that every sort key orders differently, and what is stored.
import { expect } from '@jest/globals';
import { envelope, JSON_QUERY, SQL_QUERY } from './api.js';
import type { TestGateway } from './gateway.js';

export const TEMPLATE_API = {
  create: 'api.query.template.create',
  list: 'api.query.template.list',
  update: 'api.query.template.update',
} as const;

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const JSON_QUERY_OBJECT = JSON.parse(JSON_QUERY) as Record<string, unknown>;

/** The id a template name gives: lower case, spaces as underscores. */
export function templateIdFor(name: string): string {
  return name.toLowerCase().replaceAll(' ', '_');
}

/** Creates a template (SQL_QUERY or JSON_QUERY unless a query is given) and returns its id. */
export async function seedTemplate(gw: TestGateway, name: string, queryType: 'sql' | 'json' = 'sql', query: string = queryType === 'sql' ? SQL_QUERY : JSON_QUERY): Promise<string> {
  const response = await gw.http.post('/v2/template/create').send(envelope(TEMPLATE_API.create, { template_name: name, query_type: queryType, query }));
  if (response.status !== 200) throw new Error(`creating template "${name}" failed with ${response.status}: ${JSON.stringify(response.body)}`);
  return (response.body as { result: { template_id: string } }).result.template_id;
}

export type TemplateSortField = 'created_date' | 'updated_date' | 'template_name' | 'template_id';

// Three templates whose creation date, change date, name and id each sort them differently.
// Ascending: created bravo, alpha, charlie; updated charlie, alpha, bravo; name bravo, charlie,
// alpha ("Sortkey Delta" after a rename); id alpha, bravo, charlie.
export const SORTKEY_IDS = ['sortkey_alpha', 'sortkey_bravo', 'sortkey_charlie'];
export const SORTKEY_ASCENDING: Record<TemplateSortField, string[]> = {
  created_date: ['sortkey_bravo', 'sortkey_alpha', 'sortkey_charlie'],
  updated_date: ['sortkey_charlie', 'sortkey_alpha', 'sortkey_bravo'],
  template_name: ['sortkey_bravo', 'sortkey_charlie', 'sortkey_alpha'],
  template_id: ['sortkey_alpha', 'sortkey_bravo', 'sortkey_charlie'],
};

/** The sortkey templates among `ids`, in the order given. */
export function sortkeyIdsIn(ids: string[]): string[] {
  return ids.filter((id) => SORTKEY_IDS.includes(id));
}

/** Makes the three sortkey templates (bravo is json, the others sql) with the dates above. */
export async function seedSortkeyTemplates(gw: TestGateway): Promise<void> {
  await seedTemplate(gw, 'Sortkey Alpha');
  await seedTemplate(gw, 'Sortkey Bravo', 'json');
  await seedTemplate(gw, 'Sortkey Charlie');
  const renamed = await gw.http.patch('/v2/template/update/sortkey_alpha').send(envelope(TEMPLATE_API.update, { template_name: 'Sortkey Delta' }));
  if (renamed.status !== 200) throw new Error(`renaming sortkey_alpha failed with ${renamed.status}: ${JSON.stringify(renamed.body)}`);
  const dates: [string, string, string][] = [
    ['sortkey_alpha', '2021-01-01T00:00:00Z', '2021-06-01T00:00:00Z'],
    ['sortkey_bravo', '2020-01-01T00:00:00Z', '2022-01-01T00:00:00Z'],
    ['sortkey_charlie', '2022-01-01T00:00:00Z', '2020-06-01T00:00:00Z'],
  ];
  for (const [id, created, updated] of dates) {
    await gw.sql('UPDATE query_templates SET created_date = $2, updated_date = $3 WHERE template_id = $1', [id, created, updated]);
  }
}

/** Nothing was stored under this name (any case) nor its derived id. */
export async function expectTemplateNotStored(gw: TestGateway, name: string): Promise<void> {
  const rows = await gw.sql('SELECT template_id FROM query_templates WHERE lower(template_name) = lower($1) OR template_id = $2', [name, templateIdFor(name)]);
  expect(rows.rows).toEqual([]);
}

/** How many templates are stored, of one query type or of all. */
export async function countStoredTemplates(gw: TestGateway, queryType?: 'sql' | 'json'): Promise<number> {
  const rows = await gw.sql<{ n: number }>(
    queryType ? 'SELECT count(*)::int AS n FROM query_templates WHERE query_type = $1' : 'SELECT count(*)::int AS n FROM query_templates',
    queryType ? [queryType] : [],
  );
  return rows.rows[0]!.n;
}
