// Once per test run, at the end: every REST failure code a test gateway answered must be declared by
// its operation in the API reference (rest/openapi.ts errorCodesOf), so /docs never hides a code a
// client can meet. Then the embedded PostgreSQL stops and its folder goes.
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';

async function undeclaredCodes(dir) {
  const { restEndpoints } = await tsImport('../../rest/endpoints.ts', import.meta.url);
  const { errorCodesOf } = await tsImport('../../rest/openapi.ts', import.meta.url);
  const declared = new Map(restEndpoints.map((endpoint) => [endpoint.apiId, new Set(errorCodesOf(endpoint))]));
  const observed = new Set();
  for (const file of await readdir(dir)) {
    for (const line of (await readFile(path.join(dir, file), 'utf8')).split('\n')) if (line) observed.add(line);
  }
  return [...observed]
    .filter((line) => {
      const [apiId, code] = line.split('\t');
      const codes = declared.get(apiId);
      return codes !== undefined && !codes.has(code);
    })
    .sort();
}

export default async function globalTeardown() {
  const state = globalThis.__TEST_PG__;
  if (!state) return;
  try {
    const missing = await undeclaredCodes(process.env.TEST_OBSERVED_CODES_DIR);
    if (missing.length > 0) {
      throw new Error(`REST operations answered codes their API reference does not declare (add them to the entry's errorCodes):\n  ${missing.map((line) => line.replace('\t', ': ')).join('\n  ')}`);
    }
  } finally {
    await state.cluster.stop();
    await rm(state.dataDir, { recursive: true, force: true });
  }
}
