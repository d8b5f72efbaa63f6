import { datasetAuthoringScenarios, CONNECTOR_KEY } from './dataset-authoring.js';
import { graphqlAuthoringDriver, restAuthoringDriver } from './drivers/dataset-authoring.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('dataset authoring', { rest: restAuthoringDriver, graphql: graphqlAuthoringDriver }, datasetAuthoringScenarios, { env: { CONNECTOR_CONFIG_KEY: CONNECTOR_KEY } });
