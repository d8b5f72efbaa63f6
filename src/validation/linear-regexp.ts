// Patterns that callers write (a dataset's data_schema `pattern` and `patternProperties`) run on
// RE2's linear-time engine (re2js, pure JavaScript), never on V8's backtracking one: `^(a+)+$`
// against 32 characters takes microseconds instead of seconds, and no event can stall the loop.
// RE2 has no lookaround or backreferences; such a pattern is refused when the schema is imported.
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';
import { isObject } from './json-object.js';

/** A compiled pattern with what JSON Schema validation needs. */
export interface LinearPattern {
  test(input: string): boolean;
  /** ajv keys its compiled patterns by this text: it must name the pattern, as a RegExp's does. */
  toString(): string;
}

/** Compiles an ECMAScript pattern (JSON Schema's dialect) for RE2; throws a SyntaxError naming what RE2 cannot run. */
export function compileLinearPattern(pattern: string): LinearPattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    throw new SyntaxError(`the pattern ${JSON.stringify(pattern.slice(0, 200))} cannot run on a linear-time engine (${(error as Error).message}); lookaround and backreferences are not supported`, {
      cause: error,
    });
  }
  return { test: (input) => compiled.matcher(input).find(), toString: () => `re2:${pattern}` };
}

/** ajv's `code.regExp` option: every `pattern`/`patternProperties` of a compiled schema runs on RE2. */
export const linearRegExpEngine: RegExpEngine = Object.assign((pattern: string) => compileLinearPattern(pattern), { code: 'compileLinearPattern' });

/**
 * The first `pattern` value or `patternProperties` key in a JSON Schema that RE2 cannot run,
 * described with its path, or undefined when every one compiles.
 */
export function unsupportedPatternIn(schema: unknown, path: string): string | undefined {
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) {
      const found = unsupportedPatternIn(item, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (schema === null || typeof schema !== 'object') return undefined;
  for (const [key, value] of Object.entries(schema)) {
    const here = `${path}.${key}`;
    const candidates = key === 'pattern' && typeof value === 'string' ? [value] : key === 'patternProperties' && isObject(value) ? Object.keys(value) : [];
    for (const candidate of candidates) {
      try {
        compileLinearPattern(candidate);
      } catch (error) {
        return `${here}: ${(error as Error).message}`;
      }
    }
    const found = unsupportedPatternIn(value, here);
    if (found) return found;
  }
  return undefined;
}
