// `npm ci` on any Node the project supports prints no EBADENGINE warning: every package in the lock
// file accepts the oldest release of each Node line package.json's `engines` admits. A dependency
// bump that drops one of those lines fails here, naming the package, instead of adding a screenful
// of warnings to a newcomer's first install (issue 22 found 85 lines of them on Node 20).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import semver from 'semver';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, any>;
const manifest = readJson('package.json');
const lock = readJson('package-lock.json') as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };

/** The oldest release of each line the range admits: "^20.19.0 || >=24" gives 20.19.0 and 24.0.0. */
function oldestReleases(range: string): string[] {
  return new semver.Range(range).set.map((comparators) => semver.minVersion(new semver.Range(comparators.map(String).join(' ')))!.version);
}

describe('Node versions', () => {
  const supported = oldestReleases(manifest.engines.node as string);

  it('package.json admits Node 20 (still on the project machines) and 24 (the current LTS)', () => {
    expect(semver.satisfies('20.20.2', manifest.engines.node)).toBe(true);
    expect(semver.satisfies('24.0.0', manifest.engines.node)).toBe(true);
    expect(supported).toContain('20.19.0');
  });

  it('every locked package accepts the oldest release of every supported Node line', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([location, entry]) => location !== '' && entry.engines && !Array.isArray(entry.engines) && entry.engines.node)
      .flatMap(([location, entry]) => {
        const range = (entry.engines as { node: string }).node;
        return supported.filter((node) => !semver.satisfies(node, range)).map((node) => `${location.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${range}, not ${node}`);
      });
    expect(refusing).toEqual([]);
  });
});
