// Schema inference as a pure function: a table test per detection rule and per suggestion, the
// result beyond the schema (configurations, removedKeys, dataMappings), limits and prototype
// safety, and property-based tests (fast-check) that every sample validates against the inferred
// schema under ajv's 2020-12 mode and that the output does not depend on sample order.
import { describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { GatewayError } from '../../src/errors.js';
import { InferenceInputError, inferSchema } from '../../src/modules/schema-inference/infer-schema.js';
import { createSchemaInferenceService, SCHEMA_INFERENCE_LIMITS } from '../../src/modules/schema-inference/service.js';
import type { InferredSchema, SchemaSuggestion } from '../../src/modules/schema-inference/types.js';
import { DETECTION_CASES, propertyAt, schemaPathOf, SUGGESTION_CASES, typeOf, type At } from '../support/schema-inference-cases.js';

const LIMITS = SCHEMA_INFERENCE_LIMITS;

function infer(samples: unknown[]): InferredSchema {
  return inferSchema(samples, LIMITS);
}

function suggestionsAt(result: InferredSchema, at: At): SchemaSuggestion[] {
  const path = schemaPathOf(at);
  return result.suggestions.filter((suggestion) => suggestion.path === path);
}

/**
 * A validator in 2020-12 mode that knows the contract's annotation keywords (strict mode stays on
 * for the rest). ownProperties: without it ajv reads `properties` through the prototype chain, so
 * an event without a `toString` key fails a schema that has one (fast-check found this).
 */
function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, ownProperties: true });
  (addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
  ajv.addVocabulary(['arrival_format', 'data_type', 'suggestions']);
  return ajv;
}
const ajv = newAjv();

describe('type detection', () => {
  it.each(DETECTION_CASES)('$name', ({ samples, at, expected }) => {
    expect(typeOf(propertyAt(infer(samples).schema, at))).toEqual(expected);
  });

  it('widens integers mixed with fractions to number without calling it a conflict', () => {
    const result = infer([{ v: 1 }, { v: 2.5 }]);
    expect(result.suggestions).toEqual([]);
  });

  it('leaves out a key whose samples are all null and lists it in removedKeys', () => {
    const result = infer([
      { a: 1, gone: null },
      { a: 2, gone: null },
    ]);
    expect(Object.keys(result.schema.properties)).toEqual(['a']);
    expect(result.removedKeys).toEqual([{ key: 'gone', value: null }]);
  });

  it('leaves out empty objects and arrays, and a parent they leave empty, recording each', () => {
    const result = infer([{ a: 1, meta: { tags: [], extra: {} }, list: [] }]);
    expect(Object.keys(result.schema.properties)).toEqual(['a']);
    expect(result.removedKeys).toEqual([
      { key: 'list', value: [] },
      { key: 'meta.extra', value: {} },
      { key: 'meta.tags', value: [] },
      { key: 'meta', value: {} },
    ]);
  });

  it('keeps an array that is empty in some samples, typed from the others', () => {
    const result = infer([{ tags: [] }, { tags: ['a'] }]);
    expect(propertyAt(result.schema, ['tags', '[*]'])?.type).toBe('string');
    expect(result.schema.required).toEqual(['tags']);
    expect(result.removedKeys).toEqual([]);
  });

  it('lists in required exactly the properties every sample has, not null, at every level', () => {
    const result = infer([
      { a: 1, b: 1, c: null, u: { x: 1, y: 1 } },
      { a: 2, c: 3, u: { x: 2 } },
    ]);
    expect(result.schema.required).toEqual(['a', 'u']);
    expect(propertyAt(result.schema, ['u'])?.required).toEqual(['x']);
  });

  it('writes a 2020-12 document with additionalProperties on every object and keys in code-unit order', () => {
    const result = infer([{ b: 1, a: { z: 1, y: [{ k: 1 }] }, B: true }]);
    expect(result.schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(result.schema.type).toBe('object');
    expect(result.schema.additionalProperties).toBe(true);
    expect(Object.keys(result.schema.properties)).toEqual(['B', 'a', 'b']);
    expect(Object.keys(propertyAt(result.schema, ['a'])!.properties)).toEqual(['y', 'z']);
    expect(propertyAt(result.schema, ['a'])!.additionalProperties).toBe(true);
    expect(propertyAt(result.schema, ['a', 'y', '[*]'])!.additionalProperties).toBe(true);
  });

  it('keeps the nested structure of an object that another sample sends as a scalar', () => {
    const result = infer([{ v: { a: 1 } }, { v: { a: 2 } }, { v: 'x' }]);
    expect(propertyAt(result.schema, ['v', 'a'])?.type).toBe('integer');
  });
});

describe('suggestions', () => {
  it.each(SUGGESTION_CASES)('$name', ({ samples, at, expected }) => {
    const result = infer(samples);
    const found = suggestionsAt(result, at).find((suggestion) => expected.message.test(suggestion.message));
    expect(found ?? suggestionsAt(result, at)).toMatchObject({ severity: expected.severity, path: schemaPathOf(at) });
    if (expected.resolutionType) expect(found!.resolutionType).toBe(expected.resolutionType);
    else expect(found!.resolutionType).toBeUndefined();
    if (expected.advice) expect(found!.advice).toMatch(expected.advice);
    // The same suggestion sits on the property inside the document, without the flat list's `field`.
    const { field: _field, ...onProperty } = found!;
    expect(propertyAt(result.schema, at)?.suggestions).toContainEqual(onProperty);
  });

  it('gives every suggestion a message, a severity of the original set and a path into the document', () => {
    const result = infer(SUGGESTION_CASES.flatMap((testCase) => testCase.samples));
    expect(result.suggestions.length).toBeGreaterThan(10);
    for (const suggestion of result.suggestions) {
      expect(suggestion.message.length).toBeGreaterThan(10);
      expect(['MUST-FIX', 'MEDIUM', 'LOW', '']).toContain(suggestion.severity);
      expect(suggestion.path).toMatch(/^properties[.[]/);
    }
  });

  it('names at most five disagreeing samples and counts the rest', () => {
    const samples = [...Array.from({ length: 10 }, (_, index) => ({ v: index })), ...Array.from({ length: 8 }, () => ({ v: 'x' }))];
    const [conflict] = suggestionsAt(infer(samples), ['v']).filter((suggestion) => suggestion.resolutionType === 'DATA_TYPE');
    expect(conflict!.message).toContain('string in 8 samples (samples #11, #12, #13, #14, #15 and 3 more)');
  });

  it('does not call a field optional from one sample', () => {
    expect(infer([{ a: 1, b: null }, { a: 2 }]).suggestions.some((s) => s.resolutionType === 'OPTIONAL' && s.field === 'a')).toBe(false);
    expect(infer([{ u: { a: 1 } }]).suggestions).toEqual([]);
  });

  it('does not offer a field as the dedup key when a value repeats, a sample lacks it, or there is one sample', () => {
    const repeated = infer([{ id: 'a' }, { id: 'b' }, { id: 'a' }]);
    const missing = infer([{ id: 'a' }, { id: 'b' }, { other: 1 }]);
    const single = infer([{ id: 'a' }]);
    for (const result of [repeated, missing, single]) expect(result.configurations.processing.dedupKeys).toEqual([]);
  });

  it('does not offer unique text as the dedup key unless it is a UUID or named like an identifier', () => {
    const result = infer([{ note: 'a' }, { note: 'b' }, { note: 'c' }]);
    expect(result.configurations.processing.dedupKeys).toEqual([]);
  });

  it('offers identifier-named integers as dedup keys, UUIDs first', () => {
    const result = infer([
      { seq_id: 1, mid: '0b7e2a52-5f0c-4b53-9d8e-1f0c3a9b6d11' },
      { seq_id: 2, mid: '5c2f7d0e-8a41-4c6b-b0f3-2e9d7a1c4b22' },
    ]);
    expect(result.configurations.processing.dedupKeys).toEqual(['mid', 'seq_id']);
  });

  it('does not report high cardinality from fewer than five samples', () => {
    const result = infer([{ city: 'a' }, { city: 'b' }, { city: 'c' }, { city: 'd' }]);
    expect(result.suggestions.filter((s) => s.resolutionType === 'ROLLUP')).toEqual([]);
  });

  it('does not call a few values spread evenly high-cardinality, though the original figure is high', () => {
    const result = infer(Array.from({ length: 40 }, (_, index) => ({ city: ['Pune', 'Delhi', 'Agra', 'Goa', 'Kochi'][index % 5] })));
    expect(result.suggestions.filter((s) => s.resolutionType === 'ROLLUP')).toEqual([]);
    expect(result.configurations.indexConfiguration.rollupSuggestions).toEqual([{ field: 'city', path: 'properties.city', cardinality: 80, index: false }]);
  });

  it('puts date-only timestamps after date-times and epochs', () => {
    const result = infer([{ a_date: '2024-01-01', b_time: '2024-01-01T00:00:00Z', c_ts: 1_700_000_000 }]);
    expect(result.configurations.indexConfiguration.index.map((option) => option.path)).toEqual(['obsrv_meta.syncts', 'b_time', 'c_ts', 'a_date']);
  });

  it('offers no timestamp key inside arrays or through a key with a dot', () => {
    const result = infer([{ events: [{ at: '2024-01-01T00:00:00Z' }], 'meta.ts': 1_700_000_000 }]);
    expect(result.configurations.indexConfiguration.index).toEqual([{ label: 'Event Arrival Time', path: 'obsrv_meta.syncts' }]);
    expect(result.suggestions.filter((s) => s.resolutionType === 'INDEX')).toEqual([]);
  });

  it('lists suggestions in document order, a property before its children', () => {
    const result = infer([{ b: { 'x y': 1 }, a: 1 }, { b: { 'x y': 2 } }]);
    expect(result.suggestions.map((s) => [s.field, s.resolutionType])).toEqual([
      ['a', 'OPTIONAL'],
      ['b["x y"]', 'NAMING'],
    ]);
  });
});

describe('the result beyond the schema', () => {
  const samples = [
    { mid: '0b7e2a52-5f0c-4b53-9d8e-1f0c3a9b6d11', ets: 1_700_000_000_000, day: '2024-05-01', status: 'ok', ctx: { at: '2024-05-01T10:00:00Z' } },
    { mid: '5c2f7d0e-8a41-4c6b-b0f3-2e9d7a1c4b22', ets: 1_700_000_001_000, status: 'ok', ctx: { at: '2024-05-01T11:00:00Z' } },
    { mid: 'a9d3e6f1-2b7c-4e8a-9f05-6c1d8b3e7a33', ets: 1_700_000_002_000, status: 'ok', ctx: { at: '2024-05-01T12:00:00Z' } },
    { mid: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e55', ets: 1_700_000_003_000, status: 'ok', ctx: { at: '2024-05-01T13:00:00Z' } },
    { mid: 'd1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e66', ets: 1_700_000_004_000, status: 'fail', ctx: { at: '2024-05-01T14:00:00Z' } },
  ];

  it('offers arrival time first, then timestamps every sample has (time-like names first), then the rest', () => {
    expect(infer(samples).configurations.indexConfiguration.index).toEqual([
      { label: 'Event Arrival Time', path: 'obsrv_meta.syncts' },
      { label: 'ctx.at', path: 'ctx.at' },
      { label: 'ets', path: 'ets' },
      { label: 'day', path: 'day' },
    ]);
  });

  it('reports the cardinality of text fields as the original does: 100 minus the top value share', () => {
    expect(infer(samples).configurations.indexConfiguration.rollupSuggestions).toEqual([
      { field: 'mid', path: 'properties.mid', cardinality: 80, index: false },
      { field: 'status', path: 'properties.status', cardinality: 20, index: true },
    ]);
  });

  it('suggests dedup keys and the original drop-duplicates choices', () => {
    expect(infer(samples).configurations.processing).toEqual({ dedupKeys: ['mid'], dropDuplicates: ['Yes', 'No'] });
  });

  it('returns the mapping of arrival formats to store types, a fresh copy each time', () => {
    const first = infer(samples);
    expect(Object.keys(first.dataMappings)).toEqual(['text', 'number', 'object', 'array', 'boolean']);
    expect(first.dataMappings.number.store_format.epoch).toEqual({ jsonSchema: 'integer', datasource: 'long' });
    expect(first.dataMappings.text.store_format['date-time']).toEqual({ jsonSchema: 'string', datasource: 'string' });
    first.dataMappings.text.arrival_format.push('changed');
    expect(infer(samples).dataMappings.text.arrival_format).toEqual(['string']);
  });
});

describe('limits and unsafe input', () => {
  function nested(depth: number): Record<string, unknown> {
    let value: Record<string, unknown> = { leaf: 1 };
    for (let level = 1; level < depth; level += 1) value = { n: value };
    return value;
  }

  it('infers samples nested exactly to the depth limit', () => {
    expect(() => inferSchema([nested(LIMITS.maxDepth)], LIMITS)).not.toThrow();
  });

  it('refuses a sample nested past the depth limit, naming the sample and the path', () => {
    expect(() => inferSchema([{ a: 1 }, nested(LIMITS.maxDepth + 1)], LIMITS)).toThrow(
      new InferenceInputError(`sample #2 (index 1): '${'n.'.repeat(LIMITS.maxDepth)}leaf' is nested ${LIMITS.maxDepth + 1} levels deep; at most ${LIMITS.maxDepth} levels are inferred`),
    );
  });

  it('counts array levels toward the depth limit', () => {
    expect(() => inferSchema([{ a: [[[1]]] }], { ...LIMITS, maxDepth: 3 })).toThrow(/'a\[\*\]\[\*\]\[\*\]' is nested 4 levels deep/);
  });

  it('refuses samples with more distinct fields than the limit', () => {
    const wide = Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`f${index}`, index]));
    expect(() => inferSchema([wide], { ...LIMITS, maxFields: 10 })).toThrow(/more than 10 distinct fields \(sample #1 \(index 0\) adds 'f10'\)/);
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => infer([{ a: Number.NaN }])).toThrow(InferenceInputError);
    expect(() => infer([{ a: 1n }])).toThrow(/'a' holds a value that is not JSON/);
  });

  it('keeps __proto__, constructor and prototype as ordinary keys without touching any prototype', () => {
    const samples = [JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "toString": "x"}')];
    const result = infer(samples);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(Object.keys(result.schema.properties)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.hasOwn(result.schema.properties, '__proto__')).toBe(true);
    expect(result.schema.properties['__proto__']!.properties!.polluted!.type).toBe('boolean');
    expect(propertyAt(result.schema, ['constructor', 'prototype'])?.type).toBe('object');
    expect(result.schema.required).toEqual(['__proto__', 'constructor', 'toString']);
    // The document survives JSON and validates its own sample.
    const roundTripped = JSON.parse(JSON.stringify(result.schema));
    expect(Object.keys(roundTripped.properties)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(ajv.validate(roundTripped, samples[0])).toBe(true);
    expect(ajv.validate(roundTripped, JSON.parse('{"__proto__": "text", "constructor": {}, "toString": "x"}'))).toBe(false);
  });

  it('does not treat a key named like an Object.prototype member as already seen', () => {
    const result = infer([{ hasOwnProperty: 1, valueOf: 'a' }]);
    expect(propertyAt(result.schema, ['hasOwnProperty'])?.type).toBe('integer');
    expect(propertyAt(result.schema, ['valueOf'])?.type).toBe('string');
  });
});

describe('the service', () => {
  const service = createSchemaInferenceService({ maxSamples: 3, maxDepth: 4, maxFields: 50 });

  function refusal(run: () => unknown): { code: string; message: string } | undefined {
    try {
      run();
    } catch (error) {
      if (error instanceof GatewayError) return { code: error.code, message: error.message };
      throw error;
    }
    return undefined;
  }

  it.each([
    ['no samples', { samples: [], dataset: 'd' }, /at least one event/],
    ['more samples than the limit', { samples: [{}, {}, {}, {}], dataset: 'd' }, /samples holds 4 events; at most 3/],
    ['a sample that is an array', { samples: [{}, [1]], dataset: 'd' }, /sample #2 \(index 1\) must be a JSON object, not an array/],
    ['a sample that is null', { samples: [null], dataset: 'd' }, /sample #1 \(index 0\) must be a JSON object, not null/],
    ['a sample that is a string', { samples: ['{}'], dataset: 'd' }, /not a string/],
    ['an empty dataset name', { samples: [{}], dataset: ' ' }, /dataset must name the dataset/],
    ['a sample nested too deep', { samples: [{ a: { b: { c: { d: { e: 1 } } } } }], dataset: 'd' }, /'a\.b\.c\.d\.e' is nested 5 levels deep/],
  ])('refuses %s with DATA_SCHEMA_INVALID_INPUT', (_label, input, message) => {
    const refused = refusal(() => service.infer(input));
    expect(refused?.code).toBe('DATA_SCHEMA_INVALID_INPUT');
    expect(refused?.message).toMatch(message);
  });

  it('infers within the limits', () => {
    expect(service.infer({ samples: [{ a: 1 }, { a: 2 }, { a: 3 }], dataset: 'd' }).schema.required).toEqual(['a']);
  });
});

// ---------------------------------------------------------------------------------------------
// Property-based tests. Each field gets one kind for all samples ("the types chosen"), may be left
// out of any sample, and may nest objects and arrays; keys include ones that are hard to handle.

type ScalarKind = 'text' | 'integer' | 'float' | 'boolean' | 'date-time' | 'date' | 'epoch-seconds' | 'epoch-millis' | 'uuid' | 'email';
type Spec = { kind: ScalarKind } | { kind: 'object'; fields: FieldSpec[] } | { kind: 'array'; of: Spec };
interface FieldSpec {
  key: string;
  optional: boolean;
  spec: Spec;
}

const EXPECTED_DATA_TYPE: Record<ScalarKind, string> = {
  text: 'string',
  integer: 'integer',
  float: 'number',
  boolean: 'boolean',
  'date-time': 'date-time',
  date: 'date',
  'epoch-seconds': 'epoch',
  'epoch-millis': 'epoch',
  uuid: 'string',
  email: 'string',
};

const KEYS = ['id', 'a', 'b', 'ts', 'user id', 'geo.lat', '__proto__', 'constructor', 'toString', '', 'Ä', 'value'];
const SCALAR_KINDS = Object.keys(EXPECTED_DATA_TYPE) as ScalarKind[];

const word = fc.stringMatching(/^[a-z][a-z ]{0,10}$/).filter((value) => !/^(true|false)$/i.test(value));
const instant = fc.date({ min: new Date('2000-01-02T00:00:00Z'), max: new Date('2099-12-30T00:00:00Z'), noInvalidDate: true });

function scalarArbitrary(kind: ScalarKind): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'text':
      return word;
    case 'integer':
      return fc.integer({ min: -1_000_000, max: 1_000_000 });
    case 'float':
      return fc.integer({ min: -1_000_000, max: 1_000_000 }).map((value) => value + 0.25);
    case 'boolean':
      return fc.boolean();
    case 'date-time':
      return instant.map((date) => date.toISOString());
    case 'date':
      return instant.map((date) => date.toISOString().slice(0, 10));
    case 'epoch-seconds':
      return fc.integer({ min: 946_684_800, max: 4_102_444_800 });
    case 'epoch-millis':
      return fc.integer({ min: 946_684_800_000, max: 4_102_444_800_000 });
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.tuple(word, word).map(([user, host]) => `${user.replaceAll(' ', '')}@${host.replaceAll(' ', '')}.example`);
  }
}

const specArbitrary: fc.Arbitrary<Spec> = fc.letrec<{ spec: Spec }>((tie) => ({
  spec: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...SCALAR_KINDS).map((kind): Spec => ({ kind })),
    fc
      .uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), optional: fc.boolean(), spec: tie('spec') }), { selector: (field) => field.key, minLength: 1, maxLength: 4 })
      .map((fields): Spec => ({ kind: 'object', fields })),
    tie('spec').map((of): Spec => ({ kind: 'array', of })),
  ),
})).spec;

function valueArbitrary(spec: Spec): fc.Arbitrary<unknown> {
  if (spec.kind === 'array') return fc.array(valueArbitrary(spec.of), { maxLength: 3 });
  if (spec.kind === 'object') return objectArbitrary(spec.fields);
  return scalarArbitrary(spec.kind);
}

// Objects are built with fromEntries, which defines keys: `__proto__` becomes a key, as JSON.parse makes it.
function objectArbitrary(fields: FieldSpec[]): fc.Arbitrary<Record<string, unknown>> {
  const entries = fields.map((field) => fc.tuple(field.optional ? fc.boolean() : fc.constant(true), valueArbitrary(field.spec)).map(([present, value]) => (present ? [[field.key, value]] : [])));
  return fc.tuple(...entries).map((chosen) => Object.fromEntries(chosen.flat() as [string, unknown][]));
}

const rootFields = fc.uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), optional: fc.boolean(), spec: specArbitrary }), {
  selector: (field) => field.key,
  minLength: 1,
  maxLength: 6,
});

const eventSets = rootFields.chain((fields) => fc.tuple(fc.constant(fields), fc.array(objectArbitrary(fields), { minLength: 1, maxLength: 12 })));

describe('properties of inference over random event sets', () => {
  it('produces a schema every sample validates against (ajv, 2020-12)', () => {
    fc.assert(
      fc.property(eventSets, ([, samples]) => {
        const validate = ajv.compile(JSON.parse(JSON.stringify(infer(samples).schema)));
        for (const sample of samples) {
          if (!validate(sample)) throw new Error(`sample ${JSON.stringify(sample)} fails: ${ajv.errorsText(validate.errors)}`);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('gives each scalar field the data type of its kind and requires exactly the fields every sample has', () => {
    fc.assert(
      fc.property(eventSets, ([fields, samples]) => {
        const { schema } = infer(samples);
        for (const { key, spec } of fields) {
          const count = samples.filter((sample) => Object.hasOwn(sample, key)).length;
          if (count === 0 || spec.kind === 'object' || spec.kind === 'array') continue;
          expect(propertyAt(schema, [key])?.data_type).toBe(EXPECTED_DATA_TYPE[spec.kind]);
          expect(schema.required.includes(key)).toBe(count === samples.length);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('gives the same output, byte for byte, for the same samples in any order', () => {
    fc.assert(
      fc.property(
        eventSets.chain(([, samples]) => fc.tuple(fc.constant(samples), fc.shuffledSubarray(samples, { minLength: samples.length, maxLength: samples.length }))),
        ([samples, shuffled]) => {
          const once = JSON.stringify(infer(samples));
          expect(JSON.stringify(infer(samples))).toBe(once);
          expect(JSON.stringify(infer(shuffled))).toBe(once);
        },
      ),
      { numRuns: 150 },
    );
  });
});
