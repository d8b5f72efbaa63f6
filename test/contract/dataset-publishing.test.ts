import { datasetPublishingScenarios } from './dataset-publishing.js';
import { graphqlPublishingDriver, restPublishingDriver } from './drivers/dataset-publishing.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('dataset publishing', { rest: restPublishingDriver, graphql: graphqlPublishingDriver }, datasetPublishingScenarios);
