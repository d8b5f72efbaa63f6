// Starts the real gateway (HTTP on 127.0.0.1, a random port) on a fresh database of its own, so
// test files can run in parallel. Use in beforeAll/afterAll, or through useForFile.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { quoteIdentifier } from '../../src/platform/database/embedded.js';
import { startGateway, type Gateway } from '../../src/server.js';

export interface TestGateway {
  url: string;
  gateway: Gateway;
  /** supertest bound to the running gateway, over real HTTP. */
  http: ReturnType<typeof supertest>;
  /** Connection string of this file's own database. */
  databaseUrl: string;
  /**
   * Runs SQL on this file's database (for arranging state the API cannot reach), and waits until
   * the gateway has heard of the changes it committed (its caches drop what the SQL changed).
   */
  sql<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<T>>;
  stop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests with `npm test` (jest global setup starts PostgreSQL)');
  return url;
}

export function databaseUrlFor(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new database, already migrated (cloned from the template made in global setup). */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const template = process.env.TEST_PG_TEMPLATE ?? 'gateway_test_template';
  await admin((client) => client.query(`CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(template)}`));
  return {
    name,
    url: databaseUrlFor(name),
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * Appends the REST failure codes this gateway answered (its gateway_rest_failures_total series) to
 * the run's folder, one `<api id>\t<code>` line each; global teardown checks them against the API
 * reference. Nothing when the run has no folder (a file run outside jest's global setup).
 */
async function recordFailureCodes(url: string, env: Record<string, string>): Promise<void> {
  const dir = process.env.TEST_OBSERVED_CODES_DIR;
  if (!dir) return;
  const response = await fetch(`${url}/metrics`, env.METRICS_TOKEN ? { headers: { authorization: `Bearer ${env.METRICS_TOKEN}` } } : {}).catch(() => undefined);
  if (!response?.ok) return;
  const lines = [...(await response.text()).matchAll(/^gateway_rest_failures_total\{api_id="([^"]+)",code="([^"]+)"\}/gm)].map((match) => `${match[1]}\t${match[2]}\n`);
  if (lines.length > 0) await appendFile(path.join(dir, `${process.pid}.txt`), lines.join(''));
}

/**
 * Starts what `start` makes once for the test file (beforeAll) and stops it after the file (afterAll);
 * answers an accessor to it, which fails when read before beforeAll has run.
 */
export function useForFile<T extends { stop(): Promise<unknown> }>(start: () => Promise<T>, timeoutMs?: number): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeoutMs);
  afterAll(async () => {
    await started?.stop();
  });
  return () => {
    if (!started) throw new Error('what this file uses is started by beforeAll; read it inside tests and hooks');
    return started;
  };
}

export interface TestGatewayOptions {
  /** Where log lines go (e.g. a stream collecting them); with it, the level defaults to `info`. */
  logStream?: DestinationStream;
  logLevel?: string;
}

/**
 * Another copy of the gateway on the same database as `gw` (what several replicas behind a balancer
 * are), with its own pool of 2 connections and `env` on top; stopped by the caller, before `gw`.
 */
export function startCopy(gw: Pick<TestGateway, 'databaseUrl'>, env: Record<string, string> = {}): Promise<Gateway> {
  return startGateway(loadConfig({ DATABASE_URL: gw.databaseUrl, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'test', DB_POOL_MAX: '2', ...env }), createLogger('silent'));
}

export async function startTestGateway(env: Record<string, string> = {}, options: TestGatewayOptions = {}): Promise<TestGateway> {
  const database = await createTestDatabase();
  // Sampling its own metrics off unless a test asks for it: a sampling falls on the interval's grid,
  // at any moment after start, and its statements would be counted by tests that count a request's.
  const config = loadConfig({ DATABASE_URL: database.url, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'test', DB_POOL_MAX: '4', METRICS_SAMPLE_INTERVAL_SECONDS: '0', ...env });
  const level = options.logLevel ?? (options.logStream ? 'info' : (process.env.TEST_LOG_LEVEL ?? 'silent'));
  const gateway = await startGateway(config, createLogger(level, options.logStream));
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  return {
    url: gateway.url,
    gateway,
    http: supertest(gateway.url),
    databaseUrl: database.url,
    sql: async (text, values) => {
      const result = await pool.query(text, values);
      await gateway.database.changes.sync();
      return result;
    },
    async stop() {
      await pool.end();
      await recordFailureCodes(gateway.url, env);
      await gateway.stop();
      await database.drop();
    },
  };
}
