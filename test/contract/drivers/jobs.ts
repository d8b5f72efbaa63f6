// The two transports of jobs: REST's export route (202 with Prefer: respond-async) and /v2/jobs
// routes in the envelope, GraphQL's startDatasetExport, job and cancelJob.
import type { Response } from 'supertest';
import { graphql } from '../../support/api.js';
import type { TestGateway } from '../../support/gateway.js';
import { graphqlServiceOutcome, restOutcome, type Outcome } from '../harness.js';
import type { Job, JobsDriver } from '../jobs.js';

const JOB_FIELDS = 'id kind state progress { done total unit } result { value } error { code message }';

/** A job started answers 202, with the job in the envelope and its status route in Location. */
function restJobOutcome(response: Response): Outcome<Job> {
  if (response.status !== 202) return restOutcome<Job>(response);
  const job = response.body.result as Job;
  if (response.headers.location !== `/v2/jobs/${job.id}`) throw new Error(`202 without the job's Location: ${String(response.headers.location)}`);
  return { ok: true, value: job };
}

export function restJobsDriver(gw: TestGateway): JobsDriver {
  return {
    exportNow: async (datasetId) => restOutcome(await gw.http.get(`/v2/datasets/export/${encodeURIComponent(datasetId)}`)),
    startExport: async (datasetId) => restJobOutcome(await gw.http.get(`/v2/datasets/export/${encodeURIComponent(datasetId)}`).set('prefer', 'respond-async')),
    read: async (jobId) => restOutcome<Job>(await gw.http.get(`/v2/jobs/${encodeURIComponent(jobId)}`)),
    cancel: async (jobId) => restOutcome<Job>(await gw.http.post(`/v2/jobs/cancel/${encodeURIComponent(jobId)}`)),
  };
}

export function graphqlJobsDriver(gw: TestGateway): JobsDriver {
  return {
    exportNow: async (id) => graphqlServiceOutcome(await graphql(gw, 'query($id: ID!) { exportDataset(id: $id) }', { id }), 'exportDataset'),
    startExport: async (id) => graphqlServiceOutcome<Job>(await graphql(gw, `mutation($id: String!) { startDatasetExport(id: $id) { ${JOB_FIELDS} } }`, { id }), 'startDatasetExport'),
    read: async (id) => graphqlServiceOutcome<Job>(await graphql(gw, `query($id: ID!) { job(id: $id) { ${JOB_FIELDS} } }`, { id }), 'job'),
    cancel: async (id) => graphqlServiceOutcome<Job>(await graphql(gw, `mutation($id: ID!) { cancelJob(id: $id) { ${JOB_FIELDS} } }`, { id }), 'cancelJob'),
  };
}
