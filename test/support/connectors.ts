// Helpers for connector and file tests: a gateway with a data folder of its own, uploads over both
// transports, and snapshots of what the registry and the embedded object store hold.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Response } from 'supertest';
import { startTestGateway, type TestGateway } from './gateway.js';

export interface StoreGateway extends TestGateway {
  /** This gateway's DATA_DIR (embedded objects under objects/, work folders under tmp/). */
  dataDir: string;
}

/** A gateway whose DATA_DIR is a fresh temporary folder, removed on stop. */
export async function startStoreGateway(env: Record<string, string> = {}): Promise<StoreGateway> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-store-'));
  let gw: TestGateway;
  try {
    gw = await startTestGateway({ DATA_DIR: dataDir, ...env });
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...gw,
    dataDir,
    async stop() {
      await gw.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir`, as paths relative to it (empty when the folder does not exist). */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** The registry rows as they stand, for "nothing changed" checks. */
export async function registrySnapshot(gw: TestGateway): Promise<unknown[]> {
  const rows = await gw.sql('SELECT * FROM connector_registry ORDER BY id');
  return rows.rows;
}

/** POST /v2/connector/register with the file in part `file3`, as the contract's clients send it. */
export function registerOverRest(gw: TestGateway, bytes: Buffer, filename: string, part = 'file3'): Promise<Response> {
  return gw.http.post('/v2/connector/register').attach(part, bytes, { filename, contentType: 'application/gzip' });
}

export const REGISTER_MUTATION = `mutation Register($file: Upload!) {
  registerConnector(file: $file) {
    message
    connectors { id connectorId version status category uiSpec sourceUrl iconUrl liveAt }
  }
}`;

/** registerConnector over a GraphQL multipart request (graphql-upload-minimal). */
export async function registerOverGraphQL(gw: TestGateway, bytes: Buffer, filename: string, query = REGISTER_MUTATION) {
  const response = await gw.http
    .post('/graphql')
    .set('apollo-require-preflight', 'true')
    .field('operations', JSON.stringify({ query, variables: { file: null } }))
    .field('map', JSON.stringify({ 0: ['variables.file'] }))
    .attach('0', bytes, { filename, contentType: 'application/octet-stream' });
  return {
    status: response.status,
    data: response.body.data as Record<string, any> | null | undefined,
    errors: response.body.errors as { message: string; extensions?: { code?: string; responseCode?: string } }[] | undefined,
  };
}
