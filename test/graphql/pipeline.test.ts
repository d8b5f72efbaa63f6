// The operation pipeline's declaration (src/graphql/pipeline/policies.ts) holds to the code: every
// policy says what it does at every door, each piece of code it names exists where it says, each
// test it names exists, and docs/architecture.md's table is generated from it (test/generated-files.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ENTRIES, OPERATION_PIPELINE } from '../../src/graphql/pipeline/policies.js';
import { ROOT } from '../../scripts/generated-files.js';

const entries = Object.keys(ENTRIES);

/** Whether the file defines `name`: a function, class, constant or method of that name. */
function defines(file: string, name: string): boolean {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return new RegExp(`(?:function\\*?|class|const|let|type|interface)\\s+${name}\\b|^\\s+(?:async\\s+|readonly\\s+|private\\s+|get\\s+)*${name}\\s*[(<:=]`, 'm').test(text);
}

describe('the operation pipeline', () => {
  it('has each policy once, in its order', () => {
    const names = OPERATION_PIPELINE.map((policy) => policy.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names[0]).toBe('request id');
    expect(names.indexOf('authenticate')).toBeLessThan(names.indexOf('admit'));
    expect(names.indexOf('admit')).toBeLessThan(names.indexOf('cache look-up'));
    expect(names.at(-1)).toBe('log and count');
  });

  it.each(OPERATION_PIPELINE.map((policy) => [policy.name, policy] as const))('%s: says what it does at every door, by code or with a reason', (_name, policy) => {
    expect(Object.keys(policy.at).sort()).toEqual([...entries].sort());
    for (const entry of entries) {
      const application = policy.at[entry as keyof typeof ENTRIES];
      if ('skipped' in application) expect(application.skipped.trim().length).toBeGreaterThan(10);
      else expect(application.by.length).toBeGreaterThan(0);
    }
    expect(policy.guarantee.length).toBeGreaterThan(20);
  });

  it.each(OPERATION_PIPELINE.map((policy) => [policy.name, policy] as const))('%s: every piece of code and test it names exists', (_name, policy) => {
    const missing: string[] = [];
    for (const application of Object.values(policy.at)) {
      if (!('by' in application)) continue;
      for (const reference of application.by) {
        const [file, name] = reference.split('#') as [string, string];
        if (!existsSync(path.join(ROOT, file)) || !defines(file, name)) missing.push(reference);
      }
    }
    for (const test of policy.checkedBy) if (!existsSync(path.join(ROOT, test))) missing.push(test);
    expect(missing).toEqual([]);
  });

  it('notices a reference to code that is not there (the check can fail)', () => {
    expect(defines('src/http/use-request-id.ts', 'useRequestId')).toBe(true);
    expect(defines('src/auth/access.ts', 'accessKeyOf')).toBe(true);
    expect(defines('src/http/use-request-id.ts', 'useRequestIdentifier')).toBe(false);
  });
});
