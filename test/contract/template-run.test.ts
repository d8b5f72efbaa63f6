import { graphqlTemplateRunDriver, restTemplateRunDriver } from './drivers/template-run.js';
import { defineContractSuite } from './harness.js';
import { templateRunScenarios } from './template-run.js';

defineContractSuite('template runs', { rest: restTemplateRunDriver, graphql: graphqlTemplateRunDriver }, templateRunScenarios);
