// Schema inference over the REST compatibility layer (contract 4.1 `POST /v2/datasets/dataschema`,
// 2.2, 7). Runs the shared rule table of test/support/schema-inference-cases.ts end to end, checks
// the original's result shape, and refuses bad input with the failure envelope, never a 500.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { SCHEMA_INFERENCE_LIMITS } from '../../src/modules/schema-inference/index.js';
import { envelope, ISO_WITH_OFFSET, UUID_PATTERN } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { DETECTION_CASES, propertyAt, schemaPathOf, SUGGESTION_CASES, typeOf } from '../support/schema-inference-cases.js';

let gw: TestGateway;
beforeAll(async () => {
  // The inference limit must answer, so the edge's array limit (JSON_MAX_ARRAY_LENGTH) is raised above it.
  gw = await startTestGateway({ JSON_MAX_ARRAY_LENGTH: String(2 * SCHEMA_INFERENCE_LIMITS.maxSamples) });
});
afterAll(async () => {
  await gw?.stop();
});

const API_ID = 'api.datasets.dataschema';
const PATH = '/v2/datasets/dataschema';

function post(request: unknown, msgid?: string): Promise<Response> {
  return gw.http.post(PATH).send(envelope(API_ID, request, msgid));
}

function inferOk(data: unknown[]): Promise<Record<string, any>> {
  return post({ data, config: { dataset: 'telemetry' } }).then((response) => {
    expect({ status: response.status, error: response.body.error }).toEqual({ status: 200, error: undefined });
    return response.body.result as Record<string, any>;
  });
}

/** The contract's failure envelope: 400, DATA_SCHEMA_INVALID_INPUT, and a message matching `message`. */
function expectInvalid(response: Response, message: RegExp): void {
  expect({ status: response.status, responseCode: response.body.responseCode, code: response.body.error?.code }).toEqual({
    status: 400,
    responseCode: 'BAD_REQUEST',
    code: 'DATA_SCHEMA_INVALID_INPUT',
  });
  expect(response.body).toMatchObject({ id: API_ID, ver: 'v2', params: { status: 'FAILED' }, result: {} });
  expect(response.body.error.trace).toBe('');
  expect(response.body.error.message).toMatch(message);
}

describe('POST /v2/datasets/dataschema: type detection', () => {
  it.each(DETECTION_CASES)('$name', async ({ samples, at, expected }) => {
    const { schema } = await inferOk(samples);
    expect(typeOf(propertyAt(schema, at))).toEqual(expected);
  });
});

describe('POST /v2/datasets/dataschema: suggestions on the properties of the schema', () => {
  it.each(SUGGESTION_CASES)('$name', async ({ samples, at, expected }) => {
    const { schema } = await inferOk(samples);
    const suggestions = (propertyAt(schema, at)?.suggestions ?? []) as Record<string, string>[];
    const found = suggestions.find((suggestion) => expected.message.test(suggestion.message ?? ''));
    expect(found ?? suggestions).toMatchObject({ severity: expected.severity, path: schemaPathOf(at) });
    expect(found!.resolutionType).toBe(expected.resolutionType);
    if (expected.advice) expect(found!.advice).toMatch(expected.advice);
    // The document keeps the contract's suggestion fields only.
    expect(Object.keys(found!).every((key) => ['message', 'severity', 'path', 'advice', 'resolutionType'].includes(key))).toBe(true);
  });
});

describe('POST /v2/datasets/dataschema: the result', () => {
  const samples = [
    { mid: '0b7e2a52-5f0c-4b53-9d8e-1f0c3a9b6d11', ets: 1_700_000_000_000, status: 'ok', tags: [], ctx: { at: '2024-05-01T10:00:00Z' } },
    { mid: '5c2f7d0e-8a41-4c6b-b0f3-2e9d7a1c4b22', ets: 1_700_000_001_000, status: 'ok', tags: [], ctx: { at: '2024-05-01T11:00:00Z' } },
  ];

  it('answers the success envelope with schema, configurations, dataMappings and removedKeys', async () => {
    const response = await post({ data: samples, config: { dataset: 'telemetry' } }, 'msg-schema-1');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: API_ID, ver: 'v2', responseCode: 'OK', params: { status: 'SUCCESS', msgid: 'msg-schema-1' } });
    expect(response.body.ts).toMatch(ISO_WITH_OFFSET);
    expect(response.body.params.resmsgid).toMatch(UUID_PATTERN);
    expect(Object.keys(response.body.result).sort()).toEqual(['configurations', 'dataMappings', 'removedKeys', 'schema']);
    expect(response.body.result.schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: true,
      required: ['ctx', 'ets', 'mid', 'status'],
    });
    expect(response.body.result.removedKeys).toEqual([{ key: 'tags', value: [] }]);
  });

  it('gives configurations the original shape: index and rollup summary as maps, processing as lists', async () => {
    const { configurations } = await inferOk(samples);
    expect(configurations).toEqual({
      indexConfiguration: {
        index: { 'Event Arrival Time': 'obsrv_meta.syncts', 'ctx.at': 'ctx.at', ets: 'ets' },
        rollupSuggestions: {
          summary: {
            mid: { path: 'properties.mid', cardinality: 50, index: false },
            status: { path: 'properties.status', cardinality: 0, index: true },
          },
        },
      },
      processing: { dedupKeys: ['mid'], dropDuplicates: ['Yes', 'No'] },
    });
  });

  it('returns the whole data mapping table', async () => {
    const { dataMappings } = await inferOk(samples);
    expect(Object.keys(dataMappings)).toEqual(['text', 'number', 'object', 'array', 'boolean']);
    expect(dataMappings.number).toMatchObject({ arrival_format: ['number', 'integer'], store_format: { epoch: { jsonSchema: 'integer', datasource: 'long' } } });
  });

  it('leaves removedKeys out when nothing was removed, as the original does', async () => {
    const result = await inferOk([{ a: 1 }]);
    expect(Object.keys(result).sort()).toEqual(['configurations', 'dataMappings', 'schema']);
  });

  it('keeps __proto__ and constructor as ordinary keys of the schema and of the configuration maps', async () => {
    const response = await gw.http
      .post(PATH)
      .set('content-type', 'application/json')
      .send(
        `{"id":"${API_ID}","ver":"v2","ts":"2026-01-01T00:00:00Z","params":{"msgid":"m"},"request":{"config":{"dataset":"d"},` +
          `"data":[{"__proto__":{"polluted":true},"constructor":"2024-01-01"},{"__proto__":{"polluted":false},"constructor":"2024-01-02"}]}}`,
      );
    expect(response.status).toBe(200);
    const { schema, configurations } = response.body.result;
    expect(Object.keys(schema.properties)).toEqual(['__proto__', 'constructor']);
    expect(schema.properties.__proto__.properties.polluted.type).toBe('boolean');
    expect(schema.properties.constructor.data_type).toBe('date');
    expect(configurations.indexConfiguration.index).toEqual({ 'Event Arrival Time': 'obsrv_meta.syncts', constructor: 'constructor' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('gives the same result for the same samples in another order', async () => {
    const first = await inferOk(samples);
    const second = await inferOk([...samples].reverse());
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });
});

// The rules about the samples and the dataset (how many, objects, depth, names) answer one message on
// both transports: test/contract/schema-inference.ts. Here: the envelope's shape.
describe('POST /v2/datasets/dataschema: bad input is a 400 failure envelope naming the path', () => {
  it.each([
    ['no request', {}, /#required must have required property 'request'/],
    ['no data', { request: { config: { dataset: 'd' } } }, /#properties\/request\/required must have required property 'data'/],
    ['no config', { request: { data: [{ a: 1 }] } }, /#properties\/request\/required must have required property 'config'/],
    ['no dataset in config', { request: { data: [{ a: 1 }], config: {} } }, /#properties\/request\/properties\/config\/required must have required property 'dataset'/],
    ['data that is an object', { request: { data: { a: 1 }, config: { dataset: 'd' } } }, /#properties\/request\/properties\/data\/type must be array at \/request\/data/],
    ['a dataset that is a number', { request: { data: [{ a: 1 }], config: { dataset: 5 } } }, /config\/properties\/dataset\/type must be string at \/request\/config\/dataset/],
    ['an unknown request field', { request: { data: [{ a: 1 }], config: { dataset: 'd' }, extra: 1 } }, /#properties\/request\/additionalProperties must NOT have additional properties: 'extra'/],
    ['batch mode, which is not supported', { request: { data: [{ a: 1 }], config: { dataset: 'd', isBatch: true } } }, /config\/additionalProperties must NOT have additional properties: 'isBatch'/],
    ['an unknown envelope field', { request: { data: [{ a: 1 }], config: { dataset: 'd' } }, extra: 1 }, /#additionalProperties must NOT have additional properties: 'extra'/],
  ])('refuses %s', async (_label, change, message) => {
    const body = { ...envelope(API_ID), ...change };
    expectInvalid(await gw.http.post(PATH).send(body), message);
  });

  it('refuses another API id in the envelope', async () => {
    const response = await gw.http.post(PATH).send({ ...envelope('api.datasets.read', { data: [{ a: 1 }], config: { dataset: 'd' } }) });
    expectInvalid(response, /#properties\/id\/const must be equal to constant/);
  });

  it('refuses a body that is not JSON', async () => {
    const response = await gw.http.post(PATH).set('content-type', 'application/json').send('{"request": {"data": [');
    expectInvalid(response, /not valid JSON/);
  });

  it('refuses samples with more distinct fields than the limit', async () => {
    const wide = Object.fromEntries(Array.from({ length: SCHEMA_INFERENCE_LIMITS.maxFields + 1 }, (_, index) => [`f${index}`, 1]));
    expectInvalid(await post({ data: [wide], config: { dataset: 'd' } }), /more than 2000 distinct fields/);
  });
});
