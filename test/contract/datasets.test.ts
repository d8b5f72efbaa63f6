import { datasetsScenarios } from './datasets.js';
import { graphqlDatasetsDriver, restDatasetsDriver } from './drivers/datasets.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('datasets', { rest: restDatasetsDriver, graphql: graphqlDatasetsDriver }, datasetsScenarios);
