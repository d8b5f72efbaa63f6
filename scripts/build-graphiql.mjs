#!/usr/bin/env node
// Builds the self-hosted GraphiQL page (web/graphiql) into dist/graphiql/:
//
//   dist/graphiql/index.html               copied from web/graphiql/index.html
//   dist/graphiql/graphiql.js              ESM bundle (React + GraphiQL + Monaco)
//   dist/graphiql/graphiql.css             all styles (fonts are inlined)
//   dist/graphiql/assets/*                 any files referenced by the CSS/JS
//   dist/graphiql/workers/*.worker.js      Monaco web workers (classic IIFE scripts)
//   dist/graphiql/.stamp                   input hash, used to skip no-op rebuilds
//
// Usage (from the project root): node scripts/build-graphiql.mjs [--force]
//
// The build is skipped when .stamp matches a hash of the web/graphiql sources,
// this script, and the installed versions of the packages that end up in the
// bundle. The output is written to a temporary directory and swapped into
// place at the end, so a failed build never leaves a half-written dist/graphiql.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(root, 'web', 'graphiql');
const distRoot = path.join(root, 'dist');
const outDir = path.join(distRoot, 'graphiql');
const stampFile = path.join(outDir, '.stamp');

const VERSIONED_PACKAGES = ['graphiql', '@graphiql/plugin-explorer', '@graphiql/react', 'react', 'react-dom', 'monaco-editor', 'monaco-graphql', 'esbuild'];
// Files that must exist in dist/graphiql for the stamp to be trusted.
const REQUIRED_OUTPUTS = ['index.html', 'graphiql.js', 'graphiql.css', 'workers/editor.worker.js', 'workers/json.worker.js', 'workers/graphql.worker.js'];

const args = process.argv.slice(2);
const force = args.includes('--force');
const unknown = args.filter((a) => a !== '--force');

function fail(message, err) {
  const detail = err && !err.errors ? `: ${err.message ?? err}` : '';
  console.error(`build-graphiql: FAILED — ${message}${detail}`);
  process.exit(1);
}

if (unknown.length > 0) {
  fail(`unknown argument(s) ${unknown.join(' ')} (usage: node scripts/build-graphiql.mjs [--force])`);
}

const requireFromRoot = createRequire(path.join(root, 'package.json'));

async function packageVersion(name) {
  const candidates = [];
  try {
    candidates.push(requireFromRoot.resolve(`${name}/package.json`));
  } catch {
    // Not every package exports ./package.json; fall back to the usual path.
  }
  candidates.push(path.join(root, 'node_modules', name, 'package.json'));
  for (const file of candidates) {
    try {
      const pkg = JSON.parse(await fs.readFile(file, 'utf8'));
      if (pkg.name === name && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  throw new Error(`package "${name}" is not installed (run npm install)`);
}

async function listFiles(dir, base = dir) {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const files = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(full, base)));
    else if (entry.isFile()) files.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return files.sort();
}

async function computeStamp() {
  const hash = createHash('sha256');
  for (const rel of await listFiles(srcDir)) {
    hash.update(`src:${rel}\0`);
    hash.update(await fs.readFile(path.join(srcDir, rel)));
    hash.update('\0');
  }
  // The build configuration is part of the input too.
  hash.update('script\0');
  hash.update(await fs.readFile(fileURLToPath(import.meta.url)));
  const versions = {};
  for (const name of VERSIONED_PACKAGES) versions[name] = await packageVersion(name);
  hash.update(`versions:${JSON.stringify(versions)}\0`);
  return { hash: hash.digest('hex'), versions };
}

async function isUpToDate(hash) {
  try {
    const stamp = JSON.parse(await fs.readFile(stampFile, 'utf8'));
    if (stamp.hash !== hash) return false;
  } catch {
    return false;
  }
  return REQUIRED_OUTPUTS.every((rel) => existsSync(path.join(outDir, rel)));
}

async function dirSizes(dir) {
  const sizes = {};
  for (const rel of await listFiles(dir)) {
    sizes[rel] = (await fs.stat(path.join(dir, rel))).size;
  }
  return sizes;
}

function fmtBytes(n) {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(2)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} KiB`;
  return `${n} B`;
}

async function build(tmpDir) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch (err) {
    throw new Error(`cannot load esbuild (is it installed?): ${err.message}`, { cause: err });
  }

  const common = {
    absWorkingDir: root,
    bundle: true,
    minify: true,
    sourcemap: false,
    target: ['es2022'],
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  };

  const app = esbuild.build({
    ...common,
    entryPoints: { graphiql: path.join(srcDir, 'main.jsx') },
    outdir: tmpDir,
    entryNames: '[name]',
    assetNames: 'assets/[name]-[hash]',
    format: 'esm',
    platform: 'browser',
    jsx: 'automatic',
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file' },
    // Asset URLs in graphiql.css stay relative (./assets/...), so the page
    // works wherever dist/graphiql is mounted; no publicPath needed.
  });

  const workers = esbuild.build({
    ...common,
    entryPoints: {
      'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
      'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
      'graphql.worker': 'monaco-graphql/esm/graphql.worker.js',
    },
    outdir: path.join(tmpDir, 'workers'),
    entryNames: '[name]',
    format: 'iife',
    platform: 'browser',
  });

  const results = await Promise.allSettled([app, workers]);
  const failures = results.filter((r) => r.status === 'rejected').map((r) => r.reason);
  if (failures.length > 0) {
    for (const err of failures) {
      if (err?.errors?.length) {
        const text = await esbuild.formatMessages(err.errors, { kind: 'error', color: process.stderr.isTTY });
        process.stderr.write(text.join(''));
      }
    }
    const first = failures[0];
    const summary = first?.errors?.length ? `${failures.reduce((n, e) => n + (e.errors?.length ?? 1), 0)} esbuild error(s), first: ${first.errors[0].text}` : String(first?.message ?? first);
    throw new Error(summary);
  }

  const warnings = results.flatMap((r) => r.value.warnings);
  if (warnings.length > 0) {
    const text = await esbuild.formatMessages(warnings, { kind: 'warning', color: process.stderr.isTTY });
    process.stderr.write(text.join(''));
  }

  await fs.copyFile(path.join(srcDir, 'index.html'), path.join(tmpDir, 'index.html'));
  return warnings.length;
}

async function main() {
  if (!existsSync(path.join(srcDir, 'main.jsx')) || !existsSync(path.join(srcDir, 'index.html'))) {
    fail(`sources missing: expected ${path.relative(root, srcDir)}/main.jsx and index.html`);
  }

  let stamp;
  try {
    stamp = await computeStamp();
  } catch (err) {
    fail('could not hash the inputs', err);
  }

  if (!force && (await isUpToDate(stamp.hash))) {
    console.log(`graphiql: dist/graphiql is up to date (${stamp.hash.slice(0, 12)}); use --force to rebuild`);
    return;
  }

  const started = process.hrtime.bigint();
  await fs.mkdir(distRoot, { recursive: true });
  const tmpDir = await fs.mkdtemp(path.join(distRoot, '.graphiql-build-'));
  await fs.chmod(tmpDir, 0o755); // mkdtemp creates 0700; the server may run as another user
  let warningCount;
  try {
    warningCount = await build(tmpDir);
    await fs.writeFile(path.join(tmpDir, '.stamp'), `${JSON.stringify({ hash: stamp.hash, versions: stamp.versions, builtAt: new Date().toISOString() }, null, 2)}\n`);
    await fs.rm(outDir, { recursive: true, force: true });
    await fs.rename(tmpDir, outDir);
  } catch (err) {
    await fs.rm(tmpDir, { recursive: true, force: true }).catch(() => {});
    fail('esbuild build of web/graphiql', err);
  }

  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const sizes = await dirSizes(outDir);
  const total = Object.entries(sizes)
    .filter(([rel]) => rel !== '.stamp')
    .reduce((sum, [, n]) => sum + n, 0);
  const workers = Object.entries(sizes)
    .filter(([rel]) => rel.startsWith('workers/'))
    .reduce((sum, [, n]) => sum + n, 0);
  console.log(
    `graphiql: built dist/graphiql in ${seconds.toFixed(1)}s — graphiql.js ${fmtBytes(sizes['graphiql.js'])}, ` +
      `graphiql.css ${fmtBytes(sizes['graphiql.css'])}, workers ${fmtBytes(workers)}, total ${fmtBytes(total)}` +
      (warningCount ? ` (${warningCount} warning(s), see above)` : ''),
  );
}

main().catch((err) => fail('unexpected error', err));
