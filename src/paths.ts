// Where the project's own files are (SDL, migrations, the policy, web assets), whether this code
// runs from its TypeScript sources (src/, rest/ under tsx) or compiled into dist/ (npm start).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url)); // <root>/src or <root>/dist/src
const compiled = path.basename(path.dirname(here)) === 'dist';

/** The folder holding package.json. */
export const PROJECT_ROOT = path.resolve(here, compiled ? '../..' : '..');

/** A path under the project root, e.g. `projectPath('graphql', 'operations')`. */
export function projectPath(...parts: string[]): string {
  return path.join(PROJECT_ROOT, ...parts);
}
