// Prints the breaking and dangerous changes of the GraphQL schema against an earlier commit's
// schema.graphql, with graphql's own findBreakingChanges/findDangerousChanges. A report, not a
// gate: it always exits 0 (run by `npm run lint`, so CI logs show it).
//
// Each change is also looked up in CHANGELOG.md: a change whose schema coordinate the changelog does
// not name is listed as such, so the report and the changelog say the same.
//
// Usage: node --import tsx scripts/graphql-breaking-changes.ts [--base <git ref>]
// Without --base: HEAD when the schema has changed since HEAD (before a commit), else HEAD~1
// (what the last commit changed, as on CI's clean clone).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSchema, findBreakingChanges, findDangerousChanges } from 'graphql';
import { graphqlSchemaText, ROOT } from './generated-files.js';

/**
 * What a change is about, as a changelog names it in backticks: `Type.field` (a field, argument or
 * enum value's owner and name) or `Type` (an interface added to it, a type removed).
 */
export function changeCoordinate(description: string): string | undefined {
  const implemented = /implemented by (\w+)/.exec(description);
  if (implemented) return implemented[1];
  const enumValue = /^(\w+) was (?:added to|removed from) enum type (\w+)/.exec(description);
  if (enumValue) return `${enumValue[2]}.${enumValue[1]}`;
  const inputField = /field (\w+) on input type (\w+)/.exec(description);
  if (inputField) return `${inputField[2]}.${inputField[1]}`;
  return /\b(\w+\.\w+)\b/.exec(description)?.[1] ?? /^(\w+)\b/.exec(description)?.[1];
}

/** The changes (their descriptions) whose coordinate `changelog` does not name in backticks. */
export function changesMissingFrom(changelog: string, descriptions: readonly string[]): string[] {
  return descriptions.filter((description) => {
    const coordinate = changeCoordinate(description);
    if (coordinate === undefined) return true;
    return !changelog.includes(`\`${coordinate}\``);
  });
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 });
}

function baseRef(current: string): string {
  const given = process.argv.indexOf('--base');
  if (given >= 0 && process.argv[given + 1]) return process.argv[given + 1]!;
  try {
    return git(['show', 'HEAD:schema.graphql']) === current ? 'HEAD~1' : 'HEAD';
  } catch {
    return 'HEAD';
  }
}

function main(): void {
  const current = graphqlSchemaText();
  const ref = baseRef(current);
  let previous: string;
  try {
    previous = git(['show', `${ref}:schema.graphql`]);
  } catch {
    console.log(`graphql schema: no schema.graphql at ${ref} to compare with; nothing to report`);
    return;
  }
  if (previous === current) {
    console.log(`graphql schema: unchanged since ${ref}`);
    return;
  }
  const before = buildSchema(previous);
  const after = buildSchema(current);
  const breaking = findBreakingChanges(before, after);
  const dangerous = findDangerousChanges(before, after);
  console.log(`graphql schema: changes since ${ref}: ${breaking.length} breaking, ${dangerous.length} dangerous`);
  for (const change of breaking) console.log(`  BREAKING  ${change.type}: ${change.description}`);
  for (const change of dangerous) console.log(`  DANGEROUS ${change.type}: ${change.description}`);
  const changelogFile = path.join(ROOT, 'CHANGELOG.md');
  const changelog = existsSync(changelogFile) ? readFileSync(changelogFile, 'utf8') : '';
  const missing = changesMissingFrom(
    changelog,
    [...breaking, ...dangerous].map((change) => change.description),
  );
  if (missing.length === 0) console.log('  every change is named in CHANGELOG.md');
  for (const description of missing) console.log(`  NOT IN CHANGELOG.md: ${description}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main();
  } catch (error) {
    console.log(`graphql schema: the breaking-change report could not be made: ${(error as Error).message}`);
  }
}
