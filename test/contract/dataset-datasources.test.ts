import { datasourceScenarios } from './dataset-datasources.js';
import { graphqlDatasourcesDriver, restDatasourcesDriver } from './drivers/dataset-datasources.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('dataset datasources', { rest: restDatasourcesDriver, graphql: graphqlDatasourcesDriver }, datasourceScenarios);
