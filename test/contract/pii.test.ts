import { graphqlPiiDriver, restPiiDriver } from './drivers/pii.js';
import { defineContractSuite } from './harness.js';
import { BUILT_IN_ENV, piiScenarios } from './pii.js';

defineContractSuite('PII analysis', { rest: restPiiDriver, graphql: graphqlPiiDriver }, piiScenarios, { env: BUILT_IN_ENV });
