import { dataAccessScenarios, MAX_ROWS } from './data-access.js';
import { graphqlDataAccessDriver, restDataAccessDriver } from './drivers/data-access.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('data access', { rest: restDataAccessDriver, graphql: graphqlDataAccessDriver }, dataAccessScenarios, {
  env: { TEMPLATE_QUERY_MAX_ROWS: String(MAX_ROWS), QUERY_TIMEOUT_MS: '2000' },
});
