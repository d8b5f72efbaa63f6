// The README's first command: no DATABASE_URL, so the gateway starts its own PostgreSQL, applies
// migrations, serves, and finds its data again after a restart.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startGateway } from '../../src/server.js';
import { envelope, SQL_QUERY } from '../support/api.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-embedded-'));
  await chmod(dataDir, 0o755);
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function embeddedConfig() {
  return loadConfig({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: '0', PORT: '0', NODE_ENV: 'test' });
}

describe('the gateway without DATABASE_URL', () => {
  it('starts its own PostgreSQL under DATA_DIR and keeps templates across a restart', async () => {
    const logger = createLogger('silent');
    const first = await startGateway(embeddedConfig(), logger);
    try {
      expect(first.database.description).toMatch(/^embedded PostgreSQL at 127\.0\.0\.1:\d+/);
      expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
      const ready = await supertest(first.url).get('/readyz');
      expect(ready.status).toBe(200);
      const created = await supertest(first.url)
        .post('/v2/template/create')
        .send(envelope('api.query.template.create', { template_name: 'Survives Restart', query_type: 'sql', query: SQL_QUERY }));
      expect(created.status).toBe(200);
    } finally {
      await first.stop();
    }
    // The embedded server is really stopped: its port no longer answers.
    await expect(supertest(first.url).get('/healthz')).rejects.toThrow();

    const second = await startGateway(embeddedConfig(), logger);
    try {
      const read = await supertest(second.url).get('/v2/template/read/survives_restart');
      expect(read.status).toBe(200);
      expect(read.body.result.template_name).toBe('Survives Restart');
    } finally {
      await second.stop();
    }
  }, 60_000);
});
