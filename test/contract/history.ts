// History, written once and run over POST /graphql and, as a live query, over graphql-ws and
// graphql-sse: a dataset through draft → update → publish, each change with its actor, operation,
// versionKey and changed paths (before and after); pages by the list contract's cursors; a cursor
// of another record refused; and retention keeping the newest 50 versions (VERSION_RETENTION's default).
import { beforeAll, describe, expect, it } from '@jest/globals';
import { token } from '../support/auth.js';
import { definition } from '../support/datasets.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface HistorySeen {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
  edges: { cursor: string; node: { versionKey: string; operation: string; stage: string | null; actor: string | null; at: string; changes: { path: string; before: unknown; after: unknown }[] } }[];
}

export type HistoryOf = 'dataset' | 'template';

export interface HistoryDriver {
  history(of: HistoryOf, id: string, page: { first?: number; after?: string }, bearer: string): Promise<Outcome<HistorySeen | null>>;
}

const DATASET = 'history-orders';

export function historyScenarios(ctx: SuiteContext<HistoryDriver>): void {
  let alice: string;
  let bob: string;
  const history = async (of: HistoryOf, id: string, page: { first?: number; after?: string } = {}) => {
    const seen = expectOk(await ctx.driver.history(of, id, page, alice));
    if (!seen) throw new Error(`${of} ${id} was not found`);
    return seen;
  };
  const mutate = async (bearer: string, query: string, variables: Record<string, unknown>) => {
    const response = await ctx.gw.http.post('/graphql').set('authorization', `Bearer ${bearer}`).send({ query, variables });
    expect(response.body.errors).toBeUndefined();
    return response.body.data;
  };
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    alice = await token({ sub: 'alice', roles: ['admin'] });
    bob = await token({ sub: 'bob', roles: ['admin'] });
    // alice makes the draft, bob renames it and moves it to ReadyToPublish, alice publishes it.
    const imported = await mutate(alice, 'mutation($d: JSON!) { importDataset(definition: $d) { versionKey } }', { d: definition(DATASET) });
    keys.created = imported.importDataset.versionKey;
    const updated = await mutate(bob, 'mutation($i: UpdateDatasetInput!) { updateDataset(input: $i) { versionKey } }', { i: { id: DATASET, versionKey: keys.created, name: 'Orders, renamed' } });
    keys.updated = updated.updateDataset.versionKey;
    await mutate(bob, 'mutation { transitionDataset(id: "history-orders", to: READY_TO_PUBLISH) { id } }', {});
    await mutate(alice, 'mutation { transitionDataset(id: "history-orders", to: LIVE) { id } }', {});
    // A template changed 60 times after its creation: 61 versions, of which the newest 50 are kept.
    await ctx.gw.sql(`
      INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by)
        VALUES ('kept_fifty', 'Kept fifty', 'SELECT 0 FROM {{DATASET}}', 'sql', 'alice', 'alice');
      DO $$ BEGIN FOR n IN 1..60 LOOP
        UPDATE query_templates SET query = 'SELECT ' || n || ' FROM {{DATASET}}', updated_by = 'carol' WHERE template_id = 'kept_fifty';
      END LOOP; END $$;`);
  });

  describe('a dataset through draft, update and publish', () => {
    it('tells each change newest first: who, what operation, the versionKey, and the paths it changed with their values before and after', async () => {
      const seen = await history('dataset', DATASET);
      const steps = seen.edges.map(({ node }) => `${node.operation} ${node.stage} by ${node.actor}`);
      expect(steps).toEqual(['DELETED draft by alice', 'PUBLISHED live by alice', 'STATUS_CHANGED draft by bob', 'UPDATED draft by bob', 'CREATED draft by alice']);
      const [deleted, published, ready, renamed, created] = seen.edges.map((edge) => edge.node);
      expect(seen.totalCount).toBe(5);
      // The rename: one path, its value before and after, and the versionKey the update answered.
      expect(renamed!.changes).toEqual([{ path: 'name', before: `Dataset ${DATASET}`, after: 'Orders, renamed' }]);
      expect(renamed!.versionKey).toBe(keys.updated);
      expect(created!.versionKey).toBe(keys.created);
      expect(created!.changes).toContainEqual({ path: 'name', before: null, after: `Dataset ${DATASET}` });
      expect(ready!.changes).toEqual([{ path: 'status', before: 'Draft', after: 'ReadyToPublish' }]);
      // The publish writes the Live version from the draft: its status and stage, and when it was published.
      const paths = Object.fromEntries(published!.changes.map((change) => [change.path, [change.before, change.after]]));
      expect(paths.status).toEqual(['ReadyToPublish', 'Live']);
      expect(paths.stage).toEqual(['draft', 'live']);
      expect(paths.publishedDate?.[0]).toBeNull();
      expect(typeof paths.publishedDate?.[1]).toBe('string');
      // The draft the publish replaced is gone: a deletion changes no path.
      expect(deleted!.changes).toEqual([]);
      const times = seen.edges.map(({ node }) => Date.parse(node.at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('pages with the list contract: first and after, endCursor and hasNextPage, the same changes as one page', async () => {
      const whole = await history('dataset', DATASET);
      const first = await history('dataset', DATASET, { first: 2 });
      expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
      const second = await history('dataset', DATASET, { first: 2, after: first.pageInfo.endCursor! });
      const third = await history('dataset', DATASET, { first: 2, after: second.pageInfo.endCursor! });
      expect(third.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
      expect([...first.edges, ...second.edges, ...third.edges].map((edge) => edge.node)).toEqual(whole.edges.map((edge) => edge.node));
    });

    it("refuses a cursor of another record's history, and a page larger than 100, with HISTORY_INVALID_INPUT", async () => {
      const template = await history('template', 'kept_fifty', { first: 1 });
      expectFailure(await ctx.driver.history('dataset', DATASET, { after: template.pageInfo.endCursor! }, alice), 'HISTORY_INVALID_INPUT', /is not a cursor of this Dataset's history/);
      expectFailure(await ctx.driver.history('dataset', DATASET, { first: 101 }, alice), 'HISTORY_INVALID_INPUT', /first must be an integer from 0 to 100; 101 was given/);
    });
  });

  describe('retention', () => {
    it('keeps the newest 50 versions of a record (VERSION_RETENTION), the oldest kept shown with every path it holds', async () => {
      const seen = await history('template', 'kept_fifty', { first: 100 });
      expect({ total: seen.totalCount, listed: seen.edges.length, more: seen.pageInfo.hasNextPage }).toEqual({ total: 50, listed: 50, more: false });
      const queries = (index: number) => seen.edges[index]!.node.changes.find((change) => change.path === 'query');
      expect(queries(0)).toEqual({ path: 'query', before: 'SELECT 59 FROM {{DATASET}}', after: 'SELECT 60 FROM {{DATASET}}' });
      expect(seen.edges[0]!.node.actor).toBe('carol');
      // Versions 1 to 11 (the creation and the first 10 changes) are gone; the 11th change is the oldest kept.
      expect(queries(49)).toEqual({ path: 'query', before: null, after: 'SELECT 11 FROM {{DATASET}}' });
    });
  });
}
