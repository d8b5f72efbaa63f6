// The shell examples of the README and docs/*.md, run as a reader pastes them: each block with bash
// against a real gateway (GATEWAY names it), each answer compared with the one the page shows.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from '@jest/globals';

const run = promisify(execFile);

export interface ShellExample {
  /** The block's first line, without its `# `. */
  title: string;
  script: string;
  /** The answers shown in the ```json block right after it, one JSON document per paragraph; empty when none is shown. */
  shown: unknown[];
}

/** The ```sh blocks of `markdown`, each with the ```json block that follows it (what it answers). */
export function shellExamples(markdown: string): ShellExample[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```(?:\n```json\n([\s\S]*?)```)?/g)].map((match) => ({
    title: match[1]!.split('\n')[0]!.replace(/^# /, ''),
    script: match[1]!,
    shown: (match[2] ?? '')
      .split(/\n\s*\n/)
      .filter((paragraph) => paragraph.trim() !== '')
      .map((paragraph) => JSON.parse(paragraph) as unknown),
  }));
}

/** Runs a block with bash (-euo pipefail) against `gateway`; each JSON document it printed, one per line. */
export async function runExample(script: string, gateway: string): Promise<Record<string, any>[]> {
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { env: { PATH: process.env.PATH ?? '', GATEWAY: gateway } });
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/**
 * A matcher for an answer a page shows abridged: every field shown is there with the value shown
 * (objects may hold more fields, lists more items; an item shown must be found in the list).
 */
export function abridged(shown: unknown): unknown {
  if (Array.isArray(shown)) return expect.arrayContaining(shown.map(abridged));
  if (shown !== null && typeof shown === 'object') return expect.objectContaining(Object.fromEntries(Object.entries(shown).map(([key, value]) => [key, abridged(value)])));
  return shown;
}
