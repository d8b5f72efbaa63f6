// The introspection snapshot (docs/introspection.json, written by `npm run generate:docs`) is what a
// client of the running gateway reads: GraphiQL's docs, Apollo's and urql's tooling and code
// generators all start from this answer, so a change to it shows in the diff as they will see it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getIntrospectionQuery } from 'graphql';
import { INTROSPECTION_OPTIONS, ROOT } from '../../scripts/generated-files.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

describe('the introspection snapshot', () => {
  it('is exactly what the gateway answers to the introspection query over HTTP', async () => {
    const response = await gw.http.post('/graphql').send({ query: getIntrospectionQuery(INTROSPECTION_OPTIONS) });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const committed: unknown = JSON.parse(readFileSync(path.join(ROOT, 'docs/introspection.json'), 'utf8'));
    expect(response.body.data).toEqual(committed);
  });

  it('shows what this issue added: the rate limit and typed alert rule labels', () => {
    const committed = JSON.parse(readFileSync(path.join(ROOT, 'docs/introspection.json'), 'utf8')) as {
      __schema: { types: { name: string; fields: { name: string; type: { kind: string; ofType: { kind: string; ofType: { kind: string; ofType: { name: string } } } } }[] | null }[] };
    };
    const type = (name: string) => committed.__schema.types.find((candidate) => candidate.name === name);
    expect(type('RateLimit')?.fields?.map((field) => field.name)).toEqual(['limit', 'cost', 'remaining', 'resetAt']);
    expect(type('AlertRule')?.fields?.find((field) => field.name === 'labels')?.type).toEqual({
      kind: 'NON_NULL',
      name: null,
      ofType: { kind: 'LIST', name: null, ofType: { kind: 'NON_NULL', name: null, ofType: { kind: 'OBJECT', name: 'Label', ofType: null } } },
    });
  });
});
