// A dataset's own data_schema patterns cannot stall the gateway: they run on a linear-time engine
// (RE2), so the classic catastrophic pattern `^(a+)+$` judges a long hostile value at once, and a
// pattern RE2 cannot run (lookaround, backreferences) is refused when the schema is imported.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { definition, seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

const schemaWithPattern = (pattern: string) => ({
  data_schema: {
    type: 'object',
    properties: {
      id: { type: 'string', arrival_format: 'text', data_type: 'string' },
      ts: { type: 'string', arrival_format: 'text', data_type: 'date-time' },
      code: { type: 'string', pattern, arrival_format: 'text', data_type: 'string' },
    },
    additionalProperties: false,
  },
  validation_config: { validate: true, mode: 'Strict' },
  dedup_config: { drop_duplicates: false, dedup_key: 'id', dedup_period: 604800 },
});

describe('patterns a caller writes into a data_schema', () => {
  it('judges a 10,000-character value against ^(a+)+$ without backtracking: the valid event is stored, the hostile one kept as failed', async () => {
    await seedDataset(gw, 'redos-guard', 'Live', schemaWithPattern('^(a+)+$'));
    // On a backtracking engine the second value alone would take longer than the age of the universe.
    const events = [
      { id: 'ok', code: 'a'.repeat(10_000) },
      { id: 'hostile', code: `${'a'.repeat(10_000)}!` },
    ];
    const response = await gw.http.post('/v2/data/in/redos-guard').send({ ...envelope('api.data.in'), data: events });
    expect(response.status).toBe(200);
    const stored = await gw.sql<{ id: string }>(`SELECT payload->>'id' AS id FROM events WHERE dataset_id = 'redos-guard'`);
    expect(stored.rows.map((row) => row.id)).toEqual(['ok']);
    const failed = await gw.sql<{ id: string; stage: string; reason: string }>(`SELECT payload->>'id' AS id, stage, reason FROM failed_events WHERE dataset_id = 'redos-guard'`);
    expect(failed.rows.map((row) => [row.id, row.stage])).toEqual([['hostile', 'validation']]);
    expect(failed.rows[0]!.reason).toMatch(/code/);
  });

  it('refuses at import a pattern that needs a backtracking engine (lookahead), naming where it is', async () => {
    const response = await gw.http.post('/v2/datasets/import').send(envelope('api.datasets.import', definition('redos-lookahead', schemaWithPattern('^(?=.*\\d)\\w+$'))));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('DATASET_IMPORT_INVALID_CONFIGS');
    expect(response.body.error.message).toMatch(/data_schema\.properties\.code\.pattern: .*linear-time engine/);
    const rows = await gw.sql(`SELECT 1 FROM datasets WHERE dataset_id = 'redos-lookahead'`);
    expect(rows.rowCount).toBe(0);
  });

  it('still applies ordinary patterns, Unicode classes included', async () => {
    await seedDataset(gw, 'pattern-unicode', 'Live', schemaWithPattern('^\\d{3}-\\p{L}+$'));
    const events = [
      { id: 'good', code: '123-école' },
      { id: 'bad', code: '12-x' },
    ];
    await gw.http
      .post('/v2/data/in/pattern-unicode')
      .send({ ...envelope('api.data.in'), data: events })
      .expect(200);
    const stored = await gw.sql<{ id: string }>(`SELECT payload->>'id' AS id FROM events WHERE dataset_id = 'pattern-unicode'`);
    expect(stored.rows.map((row) => row.id)).toEqual(['good']);
  });
});
