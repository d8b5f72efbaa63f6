// The depth check every ingested event and stored definition goes through: the path it names is the
// one a caller must fix.
import { describe, expect, it } from '@jest/globals';
import { pathDeeperThan } from '../../src/validation/json-depth.js';

const nested = (levels: number, leaf: unknown = 1): unknown => Array.from({ length: levels }).reduce<unknown>((inner) => ({ n: inner }), leaf);

describe('pathDeeperThan', () => {
  it('passes values at the limit and scalars, names the first member past it', () => {
    expect(pathDeeperThan(nested(3), 3)).toBeUndefined();
    expect(pathDeeperThan('text', 0)).toBeUndefined();
    expect(pathDeeperThan(null, 0)).toBeUndefined();
    expect(pathDeeperThan(nested(4), 3)).toBe('/n/n/n');
  });

  it('names array items by index, in document order, and the value itself as /', () => {
    expect(pathDeeperThan([{ a: 1 }, { b: { c: [{ d: 1 }] } }, { e: { f: { g: {} } } }], 3)).toBe('/1/b/c');
    expect(pathDeeperThan({ a: [] }, 0)).toBe('/');
  });
});
