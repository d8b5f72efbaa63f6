// VERSION_RETENTION decides how many versions of each record are kept: a gateway started with 3
// keeps the newest 3 of a template changed 5 times, and its history says so.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { graphql } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ VERSION_RETENTION: '3' });
});
afterAll(async () => {
  await gw?.stop();
});

it('keeps the newest VERSION_RETENTION versions of a record', async () => {
  await gw.sql(`
    INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by) VALUES ('kept_three', 'Kept three', 'SELECT 0', 'sql', 'alice', 'alice');
    DO $$ BEGIN FOR n IN 1..5 LOOP UPDATE query_templates SET query = 'SELECT ' || n WHERE template_id = 'kept_three'; END LOOP; END $$;`);
  const response = await graphql(
    gw,
    `
      query {
        template(id: "kept_three") {
          history(first: 10) {
            totalCount
            nodes {
              operation
              changes {
                path
                after
              }
            }
          }
        }
      }
    `,
  );
  expect(response.errors).toBeUndefined();
  const history = response.data!.template.history;
  expect(history.totalCount).toBe(3);
  expect(history.nodes.map((node: { changes: { path: string; after: unknown }[] }) => node.changes.find((change) => change.path === 'query')?.after)).toEqual(['SELECT 5', 'SELECT 4', 'SELECT 3']);
});
