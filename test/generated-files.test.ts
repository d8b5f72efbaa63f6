// The committed generated files (openapi.json, schema.graphql, docs/introspection.json, docs/configuration.md, the tables
// of docs/rest.md and docs/architecture.md) are what the code generates now (test/deploy/compose.test.ts checks that the
// compose files wire only variables the gateway knows). Fix a failure with `npm run generate:docs`
// and commit the result.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { buildSchema as buildSdlSchema, printSchema } from 'graphql';
import { environmentSchema } from '../src/config.js';
import { configVariables } from '../src/config-reference.js';
import { buildSchema } from '../src/graphql/schema.js';
import { generatedFiles, ROOT, staleFiles } from '../scripts/generated-files.js';

describe('generated files', () => {
  it('are current (otherwise run `npm run generate:docs` and commit)', () => {
    expect(staleFiles()).toEqual([]);
  });

  it('include the REST and operation pipeline tables of the docs between their markers', () => {
    expect(generatedFiles().map((file) => file.path)).toEqual([
      'graphql/lists.graphql',
      'openapi.json',
      'schema.graphql',
      'docs/introspection.json',
      'persisted-operations.json',
      'docs/configuration.md',
      'docs/rest.md',
      'docs/architecture.md',
    ]);
  });

  it('print a schema.graphql that builds back into the executable schema', () => {
    const committed = readFileSync(path.join(ROOT, 'schema.graphql'), 'utf8');
    expect(printSchema(buildSdlSchema(committed))).toBe(printSchema(buildSchema('any')));
  });

  it('document every configuration variable with a description', () => {
    const variables = configVariables();
    expect(variables.map((variable) => variable.name)).toEqual(Object.keys(environmentSchema.shape));
    for (const variable of variables) expect([variable.name, variable.description]).toEqual([variable.name, expect.stringMatching(/\S/)]);
    expect(variables.find((variable) => variable.name === 'REQUEST_BODY_LIMIT')?.defaultValue).toBe('1mb');
  });
});
