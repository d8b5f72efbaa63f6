#!/usr/bin/env node
// `npx gateway <command>`: the CLI (src/cli/main.ts). From a checkout it runs the source with tsx;
// where only the build is (dist/, e.g. the image), the compiled file.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(fileURLToPath(source))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/src/cli/main.js', import.meta.url).href);
}
