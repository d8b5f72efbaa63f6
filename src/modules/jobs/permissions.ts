// Who may call this module's root fields, by API id. Starting a job needs the API id of the work it
// runs. Reading, following or cancelling one needs api.jobs.read / api.jobs.cancel to reach the field,
// and then (the service's rule, on every door) the API id of the job's own work: a job is visible
// only to callers who could run it.
import type { FieldPermissions } from '../../auth/field-api-ids.js';
import { JOB_KIND_API_IDS } from './types.js';

const JOB_READ_API_ID = 'api.jobs.read';
const JOB_CANCEL_API_ID = 'api.jobs.cancel';

export const jobsFieldPermissions: FieldPermissions = {
  'Query.job': [JOB_READ_API_ID],
  'Subscription.jobProgress': [JOB_READ_API_ID],
  'Mutation.cancelJob': [JOB_CANCEL_API_ID],
  // The upload route (POST /v2/datasets/dataschema/upload) has an API id of its own, granted with the inference's.
  'Mutation.startSchemaInference': [JOB_KIND_API_IDS.SCHEMA_INFERENCE, 'api.datasets.dataschema.upload'],
  'Mutation.startDatasetExport': [JOB_KIND_API_IDS.DATASET_EXPORT],
  'Mutation.startConnectorRegistration': [JOB_KIND_API_IDS.CONNECTOR_REGISTRATION],
};
