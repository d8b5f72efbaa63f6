import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  const state = globalThis.__TEST_PG__;
  if (!state) return;
  await state.cluster.stop();
  await rm(state.dataDir, { recursive: true, force: true });
}
