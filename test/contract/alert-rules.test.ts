// Alert rules over both transports, each run on a gateway of its own where nothing is sampled or
// evaluated unless a scenario asks (so a Live rule's state is what the scenario made it).
import { alertRuleScenarios } from './alert-rules.js';
import { graphqlAlertRulesDriver, restAlertRulesDriver } from './drivers/alert-rules.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('alert rules', { rest: restAlertRulesDriver, graphql: graphqlAlertRulesDriver }, alertRuleScenarios, {
  env: { ALERT_EVALUATION_TICK_SECONDS: '0', METRICS_SAMPLE_INTERVAL_SECONDS: '0' },
});
