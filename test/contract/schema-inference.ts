// The input rules of schema inference (contract 4.1 dataschema; issue 34), written once for both
// transports: each bad input gets DATA_SCHEMA_INVALID_INPUT and the same message from the service,
// whichever transport carried it. What only one transport has (REST's envelope and shape checks,
// GraphQL's typed fields) is in test/rest/dataschema.test.ts and test/graphql/schema-inference.test.ts.
import { describe, expect, it } from '@jest/globals';
import { DATASET_ID_MAX_LENGTH } from '../../src/modules/datasets/index.js';
import { SCHEMA_INFERENCE_LIMITS } from '../../src/modules/schema-inference/index.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface SchemaInferenceDriver {
  /** The inferred schema document of `samples` for dataset `dataset`. */
  infer(samples: unknown[], dataset: string): Promise<Outcome<Record<string, unknown>>>;
}

/** The inference limit must answer, so the edge's array limit (JSON_MAX_ARRAY_LENGTH) is raised above it. */
export const SCHEMA_INFERENCE_ENV = { JSON_MAX_ARRAY_LENGTH: String(2 * SCHEMA_INFERENCE_LIMITS.maxSamples) };

const INVALID = 'DATA_SCHEMA_INVALID_INPUT';
const exactly = (message: string) => new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

export function schemaInferenceScenarios(ctx: SuiteContext<SchemaInferenceDriver>): void {
  it('infers a schema from well-formed samples', async () => {
    const schema = expectOk(await ctx.driver.infer([{ mid: 'a', ets: 1 }], 'telemetry'));
    expect(schema).toMatchObject({ type: 'object', properties: { mid: { type: 'string' }, ets: { type: 'integer' } } });
  });

  describe('refuses, with one message on both transports', () => {
    it.each([
      ['an empty list of samples', [], 'samples must hold at least one event'],
      ['a sample that is a string', [{ a: 1 }, 'x'], 'sample #2 (index 1) must be a JSON object, not a string'],
      ['a sample that is an array', [[1]], 'sample #1 (index 0) must be a JSON object, not an array'],
      ['a sample that is null', [{ a: 1 }, null], 'sample #2 (index 1) must be a JSON object, not null'],
    ])('%s', async (_, samples, message) => {
      expectFailure(await ctx.driver.infer(samples, 'telemetry'), INVALID, exactly(message));
    });

    it.each([
      ['an empty dataset', ''],
      ['a blank dataset', '  '],
    ])('%s', async (_, dataset) => {
      expectFailure(await ctx.driver.infer([{ a: 1 }], dataset), INVALID, exactly('dataset must name the dataset the samples belong to'));
    });

    it(`a dataset longer than a dataset id may be (${DATASET_ID_MAX_LENGTH} characters)`, async () => {
      expectOk(await ctx.driver.infer([{ a: 1 }], 'd'.repeat(DATASET_ID_MAX_LENGTH)));
      expectFailure(await ctx.driver.infer([{ a: 1 }], 'd'.repeat(DATASET_ID_MAX_LENGTH + 1)), INVALID, exactly(`dataset must be at most ${DATASET_ID_MAX_LENGTH} characters`));
    });

    it(`more than ${SCHEMA_INFERENCE_LIMITS.maxSamples} samples`, async () => {
      const samples = Array.from({ length: SCHEMA_INFERENCE_LIMITS.maxSamples + 1 }, () => ({}));
      expectFailure(
        await ctx.driver.infer(samples, 'telemetry'),
        INVALID,
        exactly(`samples holds ${SCHEMA_INFERENCE_LIMITS.maxSamples + 1} events; at most ${SCHEMA_INFERENCE_LIMITS.maxSamples} are inferred from at once`),
      );
    });

    it('a sample nested past the depth limit, naming the sample and the path', async () => {
      let deep: Record<string, unknown> = { leaf: 1 };
      for (let level = 0; level < SCHEMA_INFERENCE_LIMITS.maxDepth; level += 1) deep = { n: deep };
      expectFailure(await ctx.driver.infer([{ a: 1 }, deep], 'telemetry'), INVALID, /^sample #2 \(index 1\): 'n\.n\..*\.leaf' is nested 21 levels deep; at most 20/);
    });
  });
}
