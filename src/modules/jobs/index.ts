// The jobs module as code outside src/modules/jobs/ sees it: import it from here, never from one of its files.
// Declarations (types, permissions) first: the GraphQL layer's registries read them at load time.
export { type JobRecord } from './types.js';
export { jobsFieldPermissions } from './permissions.js';
export { createJobStore } from './store.js';
export { createJobService, type JobService } from './service.js';
export { jobResolvers } from './resolvers.js';
