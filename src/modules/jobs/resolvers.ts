// GraphQL resolvers for jobs: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';
import type { JobRecord } from './types.js';
import { connectorRegistrationWork, datasetExportWork, schemaInferenceWork } from './work.js';

export const jobResolvers: Resolvers = {
  Query: {
    job: (_, { id }, { services, access }) => services.jobs.get(id, access),
  },
  Mutation: {
    startSchemaInference: async (_, { file, dataset }, { services, actor }) => services.jobs.start(await schemaInferenceWork(services, file, dataset), actor.id),
    startDatasetExport: async (_, { id, status }, { services, actor }) => services.jobs.start(await datasetExportWork(services, id, status), actor.id),
    startConnectorRegistration: async (_, { file }, { services, actor }) => services.jobs.start(await connectorRegistrationWork(services, file, actor), actor.id),
    cancelJob: (_, { id }, { services, access, actor }) => services.jobs.cancel(id, access, actor.id),
  },
  Subscription: {
    jobProgress: {
      subscribe: (_, { id }, { services, access }) => services.jobs.follow(id, access),
      resolve: (job: JobRecord) => job,
    },
  },
  Job: {
    progress: (job) => ({ done: job.done, total: job.total, unit: job.unit }),
    result: async (job, _, { services }) => {
      if (job.state !== 'SUCCEEDED') return null;
      const link = await services.jobs.resultLink(job);
      return link && { ...link, value: job.result ?? null };
    },
    error: (job) => (job.errorMessage === null ? null : { code: job.errorCode ?? 'INTERNAL_SERVER_ERROR', message: job.errorMessage }),
  },
};
