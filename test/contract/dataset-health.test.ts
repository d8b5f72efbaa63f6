import { datasetHealthScenarios } from './dataset-health.js';
import { graphqlHealthDriver, restHealthDriver } from './drivers/dataset-health.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('dataset health', { rest: restHealthDriver, graphql: graphqlHealthDriver }, datasetHealthScenarios);
