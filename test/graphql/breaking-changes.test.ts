// The breaking-change report (npm run report:graphql-breaking, run by npm run lint) and CHANGELOG.md
// say the same: every change graphql's schema diff finds is named in the changelog, and the
// changelog's breaking and dangerous entries are changes the diff finds.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { buildSchema, findBreakingChanges, findDangerousChanges } from 'graphql';
import { graphqlSchemaText, ROOT } from '../../scripts/generated-files.js';
import { changeCoordinate, changesMissingFrom } from '../../scripts/graphql-breaking-changes.js';

/** The schema the Unreleased section is written against (before issue 35's graph work). */
const RELEASED = '411de40';

function releasedSchema(): string | undefined {
  try {
    return execFileSync('git', ['show', `${RELEASED}:schema.graphql`], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 });
  } catch {
    return undefined; // a shallow clone without that commit
  }
}

const changelog = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');

describe('the breaking-change report and the changelog', () => {
  it('finds the coordinate of each kind of change graphql reports', () => {
    expect(changeCoordinate('AlertRule.labels changed type from JSON! to [Label!]!.')).toBe('AlertRule.labels');
    expect(changeCoordinate('Mutation._noop was removed.')).toBe('Mutation._noop');
    expect(changeCoordinate('Node added to interfaces implemented by Dataset.')).toBe('Dataset');
    expect(changeCoordinate('QUERY_COST_OVER_RATE_LIMIT was added to enum type ErrorCode.')).toBe('ErrorCode.QUERY_COST_OVER_RATE_LIMIT');
    expect(changeCoordinate('An optional field direction on input type AlertRuleOrder was added.')).toBe('AlertRuleOrder.direction');
    expect(changesMissingFrom('- `AlertRule.labels` changed', ['AlertRule.labels changed type from JSON! to [Label!]!.', 'AlertRule.annotations changed type from JSON! to [Annotation!]!.'])).toEqual([
      'AlertRule.annotations changed type from JSON! to [Annotation!]!.',
    ]);
  });

  const released = releasedSchema();
  (released === undefined ? it.skip : it)(`name exactly the same breaking and dangerous changes since ${RELEASED}`, () => {
    const before = buildSchema(released!);
    const after = buildSchema(graphqlSchemaText());
    const changes = [...findBreakingChanges(before, after), ...findDangerousChanges(before, after)].map((change) => change.description);
    expect(changes.length).toBeGreaterThan(0);
    expect(changesMissingFrom(changelog, changes)).toEqual([]);
    // The other way: each coordinate the changelog's breaking and dangerous sections name first on a line is a reported change.
    const reported = new Set(changes.map(changeCoordinate));
    const sections = changelog.split(/^### /m).filter((section) => /^(Breaking: (types that changed|fields removed)|Dangerous)/.test(section));
    const named = sections.flatMap((section) => [...section.matchAll(/^- `(\w+\.\w+)`/gm)].map((match) => match[1]));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((coordinate) => !reported.has(coordinate))).toEqual([]);
  });
});
