// Long work as jobs (src/modules/jobs), on a real gateway over real HTTP: schema inference from the
// README's 10.8 MB benchmark file, dataset exports and connector registrations as jobs; progress over
// graphql-ws and SSE; cancellation; status from a second gateway on the same database; a job whose
// gateway died; who may see a job; and the bad input of the upload. What both transports share (an
// export job's outcome, a finished job's cancel, unknown and malformed ids) is test/contract/jobs.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client } from 'graphql-ws';
import supertest from 'supertest';
import WebSocket from 'ws';
import { benchmarkEvents } from '../../bench/inference-events.js';
import { type Gateway } from '../../src/server.js';
import { distributionTarGz } from '../support/archives.js';
import { expectRestFailure } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset } from '../support/datasets.js';
import { startCopy, startTestGateway, type TestGateway } from '../support/gateway.js';

/** The README's inference benchmark as a JSON-lines file: 10,000 events, 10.8 MB. */
const BENCHMARK_FILE = Buffer.from(
  benchmarkEvents(10_000)
    .map((event) => JSON.stringify(event))
    .join('\n'),
);

let gw: TestGateway;
/** A second copy on the same database. */
let copy: Gateway;
let admin: string;
let asAdmin: TestGateway;
const clients: Client[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ ...JWT_ENV, ALERT_EVALUATION_TICK_SECONDS: '0', JOB_HEARTBEAT_TIMEOUT_SECONDS: '10' });
  // Copies share their configuration, the heartbeat timeout among it: either one's sweep may fail an abandoned job.
  copy = await startCopy(gw, { ...JWT_ENV, METRICS_SAMPLE_INTERVAL_SECONDS: '0', ALERT_EVALUATION_TICK_SECONDS: '0', JOB_HEARTBEAT_TIMEOUT_SECONDS: '10' });
  admin = await token({ roles: ['admin'], expiresIn: 3600 });
  asAdmin = { ...gw, http: supertest.agent(gw.url).set('authorization', `Bearer ${admin}`) };
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map(async (client) => client.dispose()));
  await copy?.stop();
  await gw?.stop();
});

const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });

const JOB_FIELDS = 'id kind state progress { done total unit } result { url expiresAt value } error { code message }';

interface Job {
  id: string;
  kind: string;
  state: string;
  progress: { done: number; total: number | null; unit: string };
  result: { url: string; expiresAt: string; value: unknown } | null;
  error: { code: string; message: string } | null;
}

/** A GraphQL multipart upload (graphql-upload's request shape) of one file as `$file`. */
function upload(jwt: string, query: string, variables: Record<string, unknown>, file: Buffer, name: string, url = gw.url) {
  return supertest(url)
    .post('/graphql')
    .set('apollo-require-preflight', 'true')
    .set(bearer(jwt))
    .field('operations', JSON.stringify({ query, variables: { ...variables, file: null } }))
    .field('map', JSON.stringify({ 0: ['variables.file'] }))
    .attach('0', file, name);
}

async function startInference(jwt = admin, file = BENCHMARK_FILE): Promise<Job> {
  const response = await upload(
    jwt,
    `mutation($file: Upload!, $dataset: String!) { startSchemaInference(file: $file, dataset: $dataset) { ${JOB_FIELDS} } }`,
    { dataset: 'telemetry' },
    file,
    'events.jsonl',
  );
  expect(response.body.errors).toBeUndefined();
  return response.body.data.startSchemaInference as Job;
}

async function gql(query: string, variables: Record<string, unknown> = {}, jwt = admin, url = gw.url) {
  return (await supertest(url).post('/graphql').set(bearer(jwt)).send({ query, variables })).body as { data?: Record<string, any>; errors?: { message: string; extensions: { code: string } }[] };
}

/** Reads the job over REST until it has finished. */
async function finished(id: string, url = gw.url): Promise<Job> {
  for (;;) {
    const response = await supertest(url).get(`/v2/jobs/${id}`).set(bearer(admin));
    expect(response.status).toBe(200);
    const job = response.body.result as Job;
    if (['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(job.state)) return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function wsClient(jwt: string) {
  const client = createWsClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: bearer(jwt), lazy: false, retryAttempts: 0 });
  clients.push(client);
  return client;
}

/** Every event of a jobProgress subscription until it ends. */
async function collect(events: AsyncIterable<{ data?: Record<string, any> | null; errors?: unknown }>): Promise<Job[]> {
  const seen: Job[] = [];
  for await (const event of events) {
    expect(event.errors).toBeUndefined();
    seen.push(event.data!.jobProgress as Job);
  }
  return seen;
}

describe('schema inference from an uploaded file', () => {
  it('runs the 10.8 MB benchmark file to SUCCEEDED, its progress seen rising over graphql-ws, its result behind a pre-signed link', async () => {
    expect(BENCHMARK_FILE.length).toBeGreaterThan(10_500_000);
    // Over the 1 MB body limit the synchronous route keeps: the file goes as an upload instead.
    const job = await startInference();
    expect(job).toMatchObject({ kind: 'SCHEMA_INFERENCE', progress: { total: BENCHMARK_FILE.length, unit: 'bytes' }, result: null });
    expect(['QUEUED', 'RUNNING', 'SUCCEEDED']).toContain(job.state);

    const events = wsClient(admin).iterate({ query: `subscription($id: ID!) { jobProgress(id: $id) { ${JOB_FIELDS} } }`, variables: { id: job.id } });
    const seen = await collect(events);
    const last = seen.at(-1)!;
    expect(last.state).toBe('SUCCEEDED');
    expect(last.progress.done).toBe(BENCHMARK_FILE.length);
    // Progress only rises, and was seen between start and end unless the job outran the subscription.
    const done = seen.map((each) => each.progress.done);
    expect([...done].sort((a, b) => a - b)).toEqual(done);
    if (seen[0]!.state !== 'SUCCEEDED') expect(new Set(done).size).toBeGreaterThan(1);

    const value = last.result!.value as { schema: { properties: Record<string, unknown> } };
    expect(Object.keys(value.schema.properties)).toEqual(expect.arrayContaining(['eid', 'mid', 'cart', 'geo', 'metric_9']));
    const download = await fetch(last.result!.url);
    expect(download.status).toBe(200);
    expect(((await download.json()) as typeof value).schema).toEqual(value.schema);
  }, 60_000);

  it('goes through REST as a multipart upload: 202 with the status link, then SUCCEEDED', async () => {
    const response = await asAdmin.http.post('/v2/datasets/dataschema/upload?dataset=telemetry').attach('file', BENCHMARK_FILE, 'events.jsonl');
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ id: 'api.datasets.dataschema.upload', responseCode: 'OK', result: { kind: 'SCHEMA_INFERENCE' } });
    expect(response.headers.location).toBe(`/v2/jobs/${response.body.result.id}`);
    const job = await finished(response.body.result.id);
    expect(job.state).toBe('SUCCEEDED');
    expect((job.result!.value as { schema: { type: string } }).schema.type).toBe('object');
  }, 60_000);

  it('fails the job, naming the line, when the file is not JSON lines', async () => {
    const job = await startInference(admin, Buffer.from('{"a": 1}\n{"a": oops}\n'));
    const ended = await finished(job.id);
    expect(ended.state).toBe('FAILED');
    expect(ended.error).toEqual({ code: 'DATA_SCHEMA_INVALID_INPUT', message: expect.stringMatching(/line 2 of "events.jsonl" is not JSON/) });
    expect(ended.result).toBeNull();
  });
});

describe('exports and connector registrations', () => {
  it('answers an export at once as before, and as a job with Prefer: respond-async (followed over SSE)', async () => {
    const id = `jobs-export-${randomUUID().slice(0, 8)}`;
    await seedDataset(asAdmin, id, 'Live');
    const direct = await asAdmin.http.get(`/v2/datasets/export/${id}`);
    expect(direct.status).toBe(200);
    expect(direct.body.result.dataset_id).toBe(id);

    const accepted = await asAdmin.http.get(`/v2/datasets/export/${id}`).set('prefer', 'respond-async');
    expect(accepted.status).toBe(202);
    expect(accepted.headers['preference-applied']).toBe('respond-async');
    const jobId = accepted.body.result.id as string;
    expect(accepted.headers.location).toBe(`/v2/jobs/${jobId}`);

    const sse = createSseClient({ url: `${gw.url}/graphql/stream`, headers: bearer(admin), retryAttempts: 0 });
    const seen = await collect(sse.iterate({ query: `subscription($id: ID!) { jobProgress(id: $id) { ${JOB_FIELDS} } }`, variables: { id: jobId } }) as AsyncIterable<{ data?: Record<string, any> }>);
    sse.dispose();
    expect(seen.at(-1)).toMatchObject({ state: 'SUCCEEDED', kind: 'DATASET_EXPORT', progress: { done: 1, total: 1, unit: 'steps' } });
    expect(seen.at(-1)!.result!.value).toEqual(direct.body.result);
  });

  it('registers a connector as a job with Prefer: respond-async', async () => {
    const accepted = await asAdmin.http
      .post('/v2/connector/register')
      .set('prefer', 'respond-async')
      .attach('file3', distributionTarGz({ id: 'job-connector' }), 'job-connector.tar.gz');
    expect(accepted.status).toBe(202);
    const job = await finished(accepted.body.result.id);
    expect(job).toMatchObject({ state: 'SUCCEEDED', kind: 'CONNECTOR_REGISTRATION' });
    expect((job.result!.value as { connectors: { connectorId: string; status: string }[] }).connectors).toEqual([expect.objectContaining({ connectorId: 'job-connector', status: 'Live' })]);
    const read = await asAdmin.http.get(`/v2/connectors/read/${(job.result!.value as { connectors: { id: string }[] }).connectors[0]!.id}`);
    expect(read.status).toBe(200);
  });
});

describe('cancellation', () => {
  it('stops a running inference: CANCELLED at once, its work stopped short of the end, and it stays so', async () => {
    const job = await startInference();
    const cancelled = await asAdmin.http.post(`/v2/jobs/cancel/${job.id}`);
    // The job may have finished before the cancel arrived on a fast machine: then the refusal says so.
    if (cancelled.status === 409) {
      expectRestFailure(cancelled, 409, 'JOB_ALREADY_FINISHED', 'CONFLICT', /already finished \(SUCCEEDED\)/);
      return;
    }
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.result).toMatchObject({ state: 'CANCELLED', error: { code: 'JOB_CANCELLED', message: expect.stringMatching(/cancelled by/) } });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = (await asAdmin.http.get(`/v2/jobs/${job.id}`)).body.result as Job;
    expect(after.state).toBe('CANCELLED');
    expect(after.result).toBeNull();
    expect(after.progress.done).toBeLessThan(BENCHMARK_FILE.length);
  }, 60_000);
});

describe('many copies, one job', () => {
  it('answers a job started on one gateway from the second one, over REST and GraphQL', async () => {
    const job = await startInference();
    const fromCopy = await finished(job.id, copy.url);
    expect(fromCopy.state).toBe('SUCCEEDED');
    const again = await gql(`query($id: ID!) { job(id: $id) { ${JOB_FIELDS} } }`, { id: job.id }, admin, copy.url);
    expect(again.data!.job).toMatchObject({ id: job.id, state: 'SUCCEEDED' });
  }, 60_000);

  it('fails a job whose gateway stopped answering, naming it, once its heartbeat is older than the timeout', async () => {
    const id = randomUUID();
    await gw.sql(
      `INSERT INTO jobs (id, kind, api_id, state, unit, created_by, instance, heartbeat_at) VALUES ($1, 'DATASET_EXPORT', 'api.datasets.export', 'RUNNING', 'steps', 'user-1', 'dead-host:4000', now() - interval '1 minute')`,
      [id],
    );
    let job: Job;
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      job = (await asAdmin.http.get(`/v2/jobs/${id}`)).body.result as Job;
    } while (job.state === 'RUNNING');
    expect(job.state).toBe('FAILED');
    expect(job.error).toEqual({ code: 'JOB_ABANDONED', message: expect.stringMatching(/dead-host:4000\) stopped answering: no heartbeat for 10 s \(JOB_HEARTBEAT_TIMEOUT_SECONDS\)/) });
  }, 20_000);
});

describe('who may see a job', () => {
  it("gives a job only to callers who could run its work: others get the contract's refusal", async () => {
    const job = await startInference();
    // A viewer may read jobs, but not run schema inference: so not this job.
    const viewer = await token({ roles: ['viewer'], sub: 'viewer-1' });
    const refused = await supertest(gw.url).get(`/v2/jobs/${job.id}`).set(bearer(viewer));
    expectRestFailure(refused, 403, 'FORBIDDEN', 'FORBIDDEN', /api\.datasets\.dataschema/);
    const overGraphQL = await gql('query($id: ID!) { job(id: $id) { state } }', { id: job.id }, viewer);
    expect(overGraphQL.errors![0]!.extensions.code).toBe('FORBIDDEN');
    expect((await supertest(gw.url).post(`/v2/jobs/cancel/${job.id}`).set(bearer(viewer))).status).toBe(403);
    // An ingestor may not read jobs at all.
    const ingestor = await token({ roles: ['ingestor'] });
    expect((await supertest(gw.url).get(`/v2/jobs/${job.id}`).set(bearer(ingestor))).status).toBe(403);
    // Without credentials: 401.
    expect((await supertest(gw.url).get(`/v2/jobs/${job.id}`)).status).toBe(401);
    // A dataset creator could run it, so sees it.
    const creator = await token({ roles: ['dataset_creator'] });
    const seen = await supertest(gw.url).get(`/v2/jobs/${job.id}`).set(bearer(creator));
    expect(seen.status).toBe(200);
    expect(seen.body.result.id).toBe(job.id);
    await finished(job.id);
  }, 60_000);
});

describe('bad input', () => {
  it('refuses the upload route without the dataset it is for', async () => {
    const response = await asAdmin.http.post('/v2/datasets/dataschema/upload').attach('file', Buffer.from('{"a":1}\n'), 'events.jsonl');
    expectRestFailure(response, 400, 'DATA_SCHEMA_INVALID_INPUT', 'BAD_REQUEST', /dataset/);
  });
});
