// Alert records and jobs get their ids from the gateway, so the API reference can only show a
// placeholder id for get/update/delete (and a job's cancel); "Try it out" with it as shown answers 404. The reference says so on
// each such parameter, so a reader knows to paste the id the create answered.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { CREATED_ID } from '../../rest/examples.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const document = JSON.parse(readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { parameters?: { name: string; example?: string; description?: string }[] }>>;
};

describe('the API reference placeholder ids', () => {
  const placeholders = Object.entries(document.paths).flatMap(([route, operations]) =>
    Object.entries(operations).flatMap(([method, operation]) =>
      (operation.parameters ?? []).filter((parameter) => parameter.example === CREATED_ID).map((parameter) => ({ at: `${method} ${route} ${parameter.name}`, description: parameter.description })),
    ),
  );

  it('are used by the operations on alert records and jobs only', () => {
    expect(placeholders.length).toBeGreaterThan(0);
    for (const { at } of placeholders) expect(at).toMatch(/^(get|patch|delete) \/alerts\/v1\/|^(get|post) \/v2\/jobs\//);
  });

  it('each tell the reader to use the id the create answered', () => {
    for (const { at, description } of placeholders) expect({ at, description }).toEqual({ at, description: expect.stringMatching(/placeholder.*create/) });
  });
});
