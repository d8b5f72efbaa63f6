import { graphqlMetricsDriver, restMetricsDriver } from './drivers/metrics.js';
import { defineContractSuite } from './harness.js';
import { metricsScenarios } from './metrics.js';

defineContractSuite('dataset metrics', { rest: restMetricsDriver, graphql: graphqlMetricsDriver }, metricsScenarios);
