// Helpers for connector and file tests: a gateway with a data folder of its own, uploads over both
// transports, and snapshots of what the registry and the embedded object store hold.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Response } from 'supertest';
import { distributionTarGz, uiSpec } from './archives.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.js';

export interface StoreGateway extends TestGateway {
  /** This gateway's DATA_DIR (embedded objects under objects/, work folders under tmp/). */
  dataDir: string;
}

/** A gateway whose DATA_DIR is a fresh temporary folder, removed on stop. */
export async function startStoreGateway(env: Record<string, string> = {}, options: TestGatewayOptions = {}): Promise<StoreGateway> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-store-'));
  let gw: TestGateway;
  try {
    gw = await startTestGateway({ DATA_DIR: dataDir, ...env }, options);
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

/** A registry row written with SQL, for states no registration makes (a Draft) or to arrange one quickly. */
export async function insertConnector(gw: TestGateway, connectorId: string, version: string, status: 'Draft' | 'Retired'): Promise<string> {
  const id = `${connectorId}-${version}`;
  await gw.sql(
    `INSERT INTO connector_registry (id, connector_id, name, type, category, version, technology, runtime, status, ui_spec, created_by, updated_by)
     VALUES ($1, $2, $3, 'source', 'File', $4, 'python', 'spark', $5, $6, 'SYSTEM', 'SYSTEM')`,
    [id, connectorId, `${status} One`, version, status, JSON.stringify(uiSpec(`${status} One`))],
  );
  return id;
}

/** The registry status of version `id` (undefined when there is no such row). */
export async function registryStatus(gw: TestGateway, id: string): Promise<string | undefined> {
  const rows = await gw.sql<{ status: string }>('SELECT status FROM connector_registry WHERE id = $1', [id]);
  return rows.rows[0]?.status;
}

/** The ui specs of the two connectors a multiTenantDistribution() declares. */
export const MULTI_TENANT_UI = { 'ms-s3': uiSpec('S3'), 'ms-gcs': uiSpec('GCS') };
/** The versions a multiTenantDistribution() declares, in its order. */
export const MULTI_TENANT_CONNECTORS = ['ms-s3-0.2.0', 'ms-gcs-0.2.0'];

/**
 * A multi-tenant distribution (tenant "multiple", id multi-store 0.2.0) declaring two connectors,
 * AWS S3 (with a description) and Google Cloud Storage, each with its own ui spec; `withList: false`
 * leaves the connectors list out, which makes its metadata invalid.
 */
export function multiTenantDistribution({ withList = true } = {}): Buffer {
  if (!withList) return distributionTarGz({ id: 'multi-store', version: '0.2.0', category: 'File', metadata: { tenant: 'multiple' }, uiConfig: MULTI_TENANT_UI });
  return distributionTarGz({
    id: 'multi-store',
    version: '0.2.0',
    uiConfig: MULTI_TENANT_UI,
    metadataText: JSON.stringify({
      metadata: { id: 'multi-store', version: '0.2.0', name: 'Object Store', category: 'File', technology: 'python', runtime: 'spark', tenant: 'multiple' },
      connectors: [
        { id: 'ms-s3', name: 'AWS S3', description: 'S3 buckets' },
        { id: 'ms-gcs', name: 'Google Cloud Storage' },
      ],
    }),
  });
}

/** POST /v2/connector/register with the file in part `file3`, as the contract's clients send it. */
export function registerOverRest(gw: TestGateway, bytes: Buffer, filename: string, part = 'file3'): Promise<Response> {
  return gw.http.post('/v2/connector/register').attach(part, bytes, { filename, contentType: 'application/gzip' });
}

export const REGISTER_MUTATION = `mutation Register($file: Upload!) {
  registerConnector(file: $file) {
    message
    connectors { id: connectorVersionId connectorId version status category uiSpec sourceUrl iconUrl liveAt }
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
