import { graphqlJobsDriver, restJobsDriver } from './drivers/jobs.js';
import { defineContractSuite } from './harness.js';
import { jobScenarios } from './jobs.js';

defineContractSuite('jobs', { rest: restJobsDriver, graphql: graphqlJobsDriver }, jobScenarios);
