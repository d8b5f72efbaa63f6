#!/usr/bin/env node
// `npm run generate` (run by `npm start`, `npm test`, `npm run dev` and the image's build): the
// Prisma client, the GraphQL types and the GraphiQL page, each made again only when its inputs
// changed. A step's inputs (its source files, its configuration, this script and the installed
// versions of the tools it runs) are hashed; the hash is kept beside the outputs, in
// src/generated/.stamps/<step>.json, written only after the step succeeded. A step runs when that
// hash differs, when an output is missing, or when asked to (--force). A clean clone has no stamps,
// so it generates everything. Regenerating both costs ~18 s of a warm start on a busy 2-core machine
// (most of it GraphQL Code Generator loading itself), hashing their inputs ~0.1 s.
//
// Usage: node scripts/generate.mjs [--force|--dry-run] [prisma|graphql|graphiql ...]   (no step named: all three)
//   --dry-run says what would be made and why, and makes nothing; GENERATE_STAMPS names another
//   folder for the stamps (test/deploy/npm-start.test.ts).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stampDir = path.resolve(root, process.env.GENERATE_STAMPS || 'src/generated/.stamps');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/**
 * The steps, in order. `inputs` are files or folders (every file under a folder, but the outputs);
 * `outputs` must all exist for a stamp to be trusted.
 */
const STEPS = {
  prisma: {
    title: 'Prisma client',
    inputs: ['prisma/schema.prisma', 'prisma.config.ts'],
    packages: ['prisma', '@prisma/client'],
    outputs: ['src/generated/prisma/client.ts', 'src/generated/prisma/models.ts'],
    // generate reads DATABASE_URL through prisma.config.ts but never connects.
    command: [bin('prisma'), 'generate', '--no-hints'],
    env: { DATABASE_URL: process.env.DATABASE_URL || 'postgresql://localhost:5432/placeholder' },
    quiet: true,
  },
  graphql: {
    title: 'GraphQL types',
    // codegen.ts reads the enum tables of every module (src/graphql/enum-values.ts), and the REST
    // entries' operations are its documents: any source file can change what it writes.
    inputs: ['codegen.ts', 'graphql', 'src', 'rest'],
    packages: ['graphql', '@graphql-codegen/cli', '@graphql-codegen/typescript', '@graphql-codegen/typescript-resolvers', '@graphql-codegen/typescript-operations'],
    outputs: ['src/generated/graphql.ts', 'src/generated/rest-operations.ts'],
    command: [bin('graphql-codegen'), '--config', 'codegen.ts', '--silent'],
  },
  // Keeps a stamp of its own (dist/graphiql/.stamp): it is only run, with --force passed on.
  graphiql: { title: 'GraphiQL page', command: [process.execPath, 'scripts/build-graphiql.mjs'], ownStamp: true },
};

const args = process.argv.slice(2);
const force = args.includes('--force');
const dryRun = args.includes('--dry-run');
const named = args.filter((arg) => arg !== '--force' && arg !== '--dry-run');
const unknown = named.filter((name) => !(name in STEPS));
if (unknown.length > 0) {
  console.error(`generate: unknown step ${unknown.join(', ')} (steps: ${Object.keys(STEPS).join(', ')})`);
  process.exit(2);
}

/** Every file under `relative` (a file or a folder), as paths from the root, sorted; generated files left out. */
function filesOf(relative) {
  const full = path.join(root, relative);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [relative];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith(`src${path.sep}generated${path.sep}`))
    .sort();
}

function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'missing';
  }
}

function inputHash(step) {
  const hash = createHash('sha256');
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  for (const file of step.inputs.flatMap(filesOf)) hash.update(`\0${file}\0`).update(readFileSync(path.join(root, file)));
  for (const name of step.packages) hash.update(`\0${name}@${installedVersion(name)}`);
  return hash.digest('hex');
}

function stampOf(name) {
  try {
    return JSON.parse(readFileSync(path.join(stampDir, `${name}.json`), 'utf8')).inputs;
  } catch {
    return undefined;
  }
}

/** Runs a step's command; exits with its code when it fails. */
function run(name, step) {
  const started = Date.now();
  const result = spawnSync(step.command[0], [...step.command.slice(1), ...(step.ownStamp && force ? ['--force'] : [])], {
    cwd: root,
    env: { ...process.env, ...step.env },
    stdio: ['ignore', step.quiet ? 'ignore' : 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    console.error(`generate: ${step.title} failed (${step.command.map((part) => path.relative(root, part) || part).join(' ')} exited with ${result.status ?? result.signal ?? result.error?.message})`);
    process.exit(result.status || 1);
  }
  return Date.now() - started;
}

for (const name of named.length > 0 ? named : Object.keys(STEPS)) {
  const step = STEPS[name];
  if (step.ownStamp) {
    if (!dryRun) run(name, step);
    continue;
  }
  const inputs = inputHash(step);
  const missing = step.outputs.find((file) => !existsSync(path.join(root, file)));
  const stamped = stampOf(name);
  if (!force && !missing && stamped === inputs) {
    console.log(`generate: ${step.title} up to date (inputs ${inputs.slice(0, 12)}), not regenerated`);
    continue;
  }
  const why = force ? 'asked to (--force)' : missing ? `${missing} is missing` : stamped ? 'its inputs changed' : 'no stamp of its inputs yet';
  if (dryRun) {
    console.log(`generate: ${step.title} would be generated (${why})`);
    continue;
  }
  // A step that fails halfway leaves no stamp behind, so the next run makes it again.
  rmSync(path.join(stampDir, `${name}.json`), { force: true });
  const tookMs = run(name, step);
  mkdirSync(stampDir, { recursive: true });
  writeFileSync(path.join(stampDir, `${name}.json`), `${JSON.stringify({ inputs, generatedAt: new Date().toISOString() }, null, 2)}\n`);
  console.log(`generate: ${step.title} generated in ${(tookMs / 1000).toFixed(1)} s (${why})`);
}
