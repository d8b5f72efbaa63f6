// The walker behind JSON_MAX_STRING_LENGTH and JSON_MAX_ARRAY_LENGTH (src/validation/json-limits.ts):
// the first offence in document order, as a JSON Pointer, without recursion.
import { describe, expect, it } from '@jest/globals';
import { characterCount, describeJsonLimitViolation, findJsonLimitViolation } from '../../src/validation/json-limits.js';

const limits = { maxStringLength: 5, maxArrayLength: 3 };

describe('findJsonLimitViolation', () => {
  it('accepts a document at the limits, empty containers and scalars included', () => {
    expect(findJsonLimitViolation({ abcde: 'abcde', list: [1, 2, 3], empty: {}, none: [], n: 1, b: true, z: null }, limits)).toBeUndefined();
    expect(findJsonLimitViolation('abcde', limits)).toBeUndefined();
    expect(findJsonLimitViolation(undefined, limits)).toBeUndefined();
  });

  it('returns the first offence in document order, keys before their values', () => {
    expect(findJsonLimitViolation({ a: [1, { b: 'toolong' }], c: [1, 2, 3, 4] }, limits)).toEqual({ kind: 'string', path: '/a/1/b', length: 7, limit: 5 });
    expect(findJsonLimitViolation({ a: 'ok', longkey: 'toolong' }, limits)).toEqual({ kind: 'key', path: '/longkey', length: 7, limit: 5 });
    expect(findJsonLimitViolation({ a: [1, 2, 3, 4], b: 'toolong' }, limits)).toEqual({ kind: 'array', path: '/a', length: 4, limit: 3 });
    expect(findJsonLimitViolation('toolong', limits)).toEqual({ kind: 'string', path: '', length: 7, limit: 5 });
  });

  it('walks only what JSON can hold: class instances (an Upload, say) are skipped, even when they refer to themselves', () => {
    class Upload {
      self: unknown = this;
      name = 'toolong';
    }
    expect(findJsonLimitViolation({ file: new Upload(), list: [new Upload()] }, limits)).toBeUndefined();
    expect(findJsonLimitViolation(Object.assign(Object.create(null) as object, { a: 'toolong' }), limits)).toMatchObject({ path: '/a' });
  });

  it('escapes ~ and / in the pointer (RFC 6901)', () => {
    expect(findJsonLimitViolation({ 'a/b': { '~c': 'toolong' } }, limits)?.path).toBe('/a~1b/~0c');
  });

  it('counts characters as code points: a surrogate pair is one, a lone surrogate one', () => {
    expect(characterCount('🙂🙂x')).toBe(3);
    expect(characterCount('\ud83d')).toBe(1);
    expect(characterCount('a\ude42\ud83d')).toBe(3);
    expect(findJsonLimitViolation('🙂🙂🙂🙂🙂', limits)).toBeUndefined();
    expect(findJsonLimitViolation('🙂🙂🙂🙂🙂🙂', limits)).toMatchObject({ kind: 'string', length: 6 });
  });

  it('finds an unpaired surrogate in a string or a key, and lets surrogate pairs through', () => {
    const limits = { maxStringLength: 100, maxArrayLength: 10 };
    expect(findJsonLimitViolation({ a: ['ok', 'emoji 💥', '𝄞'] }, limits)).toBeUndefined();
    expect(findJsonLimitViolation({ a: ['ok', 'lone \ud800 high'] }, limits)).toEqual({ kind: 'unpaired-surrogate', path: '/a/1', length: 0, limit: 0 });
    expect(findJsonLimitViolation({ a: 'lone low \udc00 first' }, limits)).toMatchObject({ kind: 'unpaired-surrogate', path: '/a' });
    expect(findJsonLimitViolation({ ['k\ud800']: 1 }, limits)).toEqual({ kind: 'unpaired-surrogate', path: '/k\ud800', length: 0, limit: 0, inKey: true });
    expect(describeJsonLimitViolation(findJsonLimitViolation({ x: 'reversed \udc00\ud800' }, limits)!, '/request')).toBe(
      'the string at /request/x is not valid Unicode text: it holds an unpaired surrogate (such as \\ud800 without its pair)',
    );
  });

  it('walks a document nested a million levels deep without recursion', () => {
    let deep: unknown = 'toolong';
    for (let i = 0; i < 1_000_000; i += 1) deep = [deep];
    const found = findJsonLimitViolation(deep, limits);
    expect(found).toMatchObject({ kind: 'string', length: 7 });
    expect(found!.path).toHaveLength(2_000_000);
  });
});

describe('describeJsonLimitViolation', () => {
  it('names the path, the length, the limit and the setting', () => {
    expect(describeJsonLimitViolation({ kind: 'string', path: '/request/data/0/name', length: 2_000_001, limit: 1_048_576 })).toBe(
      'the string at /request/data/0/name is 2000001 characters long; the limit is 1048576 (JSON_MAX_STRING_LENGTH)',
    );
    expect(describeJsonLimitViolation({ kind: 'array', path: '/input/items', length: 11, limit: 10 }, '/variables')).toBe(
      'the array at /variables/input/items has 11 items; the limit is 10 (JSON_MAX_ARRAY_LENGTH)',
    );
    expect(describeJsonLimitViolation({ kind: 'string', path: '', length: 9, limit: 5 })).toBe('the string at / is 9 characters long; the limit is 5 (JSON_MAX_STRING_LENGTH)');
  });

  it('keeps the message short for a huge key or a very deep path', () => {
    const key = describeJsonLimitViolation({ kind: 'key', path: `/a/${'k'.repeat(100_000)}`, length: 100_000, limit: 5 });
    expect(key).toBe(`the object key at /a/${'k'.repeat(64)}… is 100000 characters long; the limit is 5 (JSON_MAX_STRING_LENGTH)`);
    const deep = describeJsonLimitViolation({ kind: 'array', path: '/0'.repeat(10_000), length: 4, limit: 3 });
    expect(deep).toBe(`the array at ${'/0'.repeat(20)}/…${'/0'.repeat(10)} has 4 items; the limit is 3 (JSON_MAX_ARRAY_LENGTH)`);
  });
});
