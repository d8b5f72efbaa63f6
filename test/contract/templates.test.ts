import { graphqlTemplatesDriver, restTemplatesDriver } from './drivers/templates.js';
import { defineContractSuite } from './harness.js';
import { templatesScenarios } from './templates.js';

defineContractSuite('query templates', { rest: restTemplatesDriver, graphql: graphqlTemplatesDriver }, templatesScenarios);
