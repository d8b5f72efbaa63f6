import { JWT_ENV } from '../support/auth.js';
import { graphqlAggregatesDriver, sseAggregatesDriver, wsAggregatesDriver } from './drivers/list-aggregates.js';
import { defineContractSuite } from './harness.js';
import { aggregateScenarios } from './list-aggregates.js';

defineContractSuite('list aggregates', { graphql: graphqlAggregatesDriver, 'graphql-ws': wsAggregatesDriver, 'graphql-sse': sseAggregatesDriver }, aggregateScenarios, { env: JWT_ENV });
