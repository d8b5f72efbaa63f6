#!/usr/bin/env node
// Compiles the gateway (src/ and rest/) to JavaScript in dist/ (dist/src/main.js is the entry),
// and the operator's commands beside it (dist/scripts/api-key.js, which the image carries),
// file by file with esbuild: no bundling, so the layout and the relative imports stay as written,
// and it takes about a second. Types are checked by `npm run lint`, not here.
// dist/graphiql (scripts/build-graphiql.mjs) is left alone.
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['src', 'rest'];
// Commands an operator runs where the gateway runs (in the image too); the other scripts are for development.
const COMMANDS = ['scripts/api-key.ts'];

async function typescriptFiles(dir) {
  const entries = await readdir(path.join(root, dir), { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')).map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));
}

const started = Date.now();
const entryPoints = [...(await Promise.all(SOURCE_DIRS.map(typescriptFiles))).flat(), ...COMMANDS.map((file) => path.join(root, file))];
await Promise.all([...SOURCE_DIRS, 'scripts'].map((dir) => rm(path.join(root, 'dist', dir), { recursive: true, force: true })));
await build({
  entryPoints,
  outdir: path.join(root, 'dist'),
  outbase: root,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
console.log(`build: ${entryPoints.length} files compiled into dist/ in ${Date.now() - started} ms`);
