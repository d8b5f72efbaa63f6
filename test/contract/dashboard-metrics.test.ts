import { SAMPLE_SECONDS, dashboardMetricsScenarios } from './dashboard-metrics.js';
import { graphqlDashboardMetricsDriver, restDashboardMetricsDriver } from './drivers/dashboard-metrics.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('dashboard metrics', { rest: restDashboardMetricsDriver, graphql: graphqlDashboardMetricsDriver }, dashboardMetricsScenarios, {
  env: { METRICS_SAMPLE_INTERVAL_SECONDS: String(SAMPLE_SECONDS) },
});
