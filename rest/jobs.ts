// REST entries for jobs (src/modules/jobs): a job's status and its cancellation, and the upload that
// starts a schema inference from a file. Routes whose work may be long (the dataset export, the
// connector registration) start a job when asked with `Prefer: respond-async`: see their entries.
import type {
  RestCancelJobMutation,
  RestCancelJobMutationVariables,
  RestJobQuery,
  RestJobQueryVariables,
  RestStartSchemaInferenceMutation,
  RestStartSchemaInferenceMutationVariables,
} from '../src/generated/rest-operations.js';
import { defineEndpoint, pathParam } from './table.js';

/** What every job answer selects: the REST result is the job as GraphQL gives it. */
export const JOB_FIELDS = /* GraphQL */ `
  fragment RestJobFields on Job {
    id
    kind
    state
    progress {
      done
      total
      unit
    }
    result {
      url
      expiresAt
      value
    }
    error {
      code
      message
    }
    createdBy
    createdAt
    updatedAt
    finishedAt
  }
`;

const JOB_ID = { type: 'object', properties: { job_id: { type: 'string', format: 'uuid', description: 'The job id (a UUID).' } }, required: ['job_id'] } as const;

export const jobEndpoints = [
  defineEndpoint<RestJobQuery, RestJobQueryVariables>({
    method: 'GET',
    path: '/v2/jobs/:job_id',
    apiId: 'api.jobs.read',
    summary: "A job's state, progress and result link (visible to callers who could run its work)",
    invalidInputCode: 'JOB_INVALID_INPUT',
    errorCodes: ['JOB_NOT_FOUND'],
    pathSchema: JOB_ID,
    operation: /* GraphQL */ `
      query RestJob($id: ID!) {
        job(id: $id) {
          ...RestJobFields
        }
      }
      ${JOB_FIELDS}
    `,
    variables: (input) => ({ id: pathParam(input, 'job_id') }),
    result: (data) => data.job,
  }),

  defineEndpoint<RestCancelJobMutation, RestCancelJobMutationVariables>({
    method: 'POST',
    path: '/v2/jobs/cancel/:job_id',
    apiId: 'api.jobs.cancel',
    summary: 'Cancel an unfinished job (CANCELLED at once; its work stops at its next step)',
    invalidInputCode: 'JOB_INVALID_INPUT',
    errorCodes: ['JOB_NOT_FOUND', 'JOB_ALREADY_FINISHED'],
    pathSchema: JOB_ID,
    operation: /* GraphQL */ `
      mutation RestCancelJob($id: ID!) {
        cancelJob(id: $id) {
          ...RestJobFields
        }
      }
      ${JOB_FIELDS}
    `,
    variables: (input) => ({ id: pathParam(input, 'job_id') }),
    result: (data) => data.cancelJob,
  }),

  defineEndpoint<RestStartSchemaInferenceMutation, RestStartSchemaInferenceMutationVariables>({
    method: 'POST',
    path: '/v2/datasets/dataschema/upload',
    apiId: 'api.datasets.dataschema.upload',
    summary: 'Infer a data schema from an uploaded file of events (multipart/form-data, one file: JSON lines or a JSON array; up to CONNECTOR_UPLOAD_LIMIT), as a job: 202 with its status link',
    invalidInputCode: 'DATA_SCHEMA_INVALID_INPUT',
    errorCodes: [],
    multipart: true,
    querySchema: {
      type: 'object',
      properties: { dataset: { type: 'string', minLength: 1, maxLength: 200, description: 'The dataset the samples are for.' } },
      required: ['dataset'],
    },
    startsJob: true,
    operation: /* GraphQL */ `
      mutation RestStartSchemaInference($file: Upload!, $dataset: String!) {
        startSchemaInference(file: $file, dataset: $dataset) {
          ...RestJobFields
        }
      }
      ${JOB_FIELDS}
    `,
    variables: (input) => ({ file: input.file as RestStartSchemaInferenceMutationVariables['file'], dataset: String(input.query.dataset) }),
    result: (data) => data.startSchemaInference,
  }),
];
