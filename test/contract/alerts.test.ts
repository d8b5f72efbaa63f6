// One suite for alerting, so that each transport's run starts one gateway (with managers, SMTP and a
// webhook receiver of its own): silences, metric aliases, notification channels. A second suite
// runs the `manager` names legacy clients send on a gateway without Grafana.
import { afterEach, describe } from '@jest/globals';
import { startAlertingGateway } from '../support/alerting.js';
import { lineCollector } from '../support/log-lines.js';
import { channelScenarios } from './alert-channels.js';
import { LEGACY_MANAGER_ENV, legacyManagerScenarios, type LoggedAlertingGateway } from './alert-legacy-managers.js';
import { metricAliasScenarios } from './alert-metric-aliases.js';
import { silenceScenarios } from './alert-silences.js';
import { graphqlAlertsDriver, restAlertsDriver } from './drivers/alerts.js';
import { defineContractSuite } from './harness.js';

defineContractSuite(
  'alerts',
  { rest: restAlertsDriver, graphql: graphqlAlertsDriver },
  (ctx) => {
    afterEach(() => ctx.gw.fx.reset());
    describe('silences', () => silenceScenarios(ctx));
    describe('metric aliases', () => metricAliasScenarios(ctx));
    describe('notification channels', () => channelScenarios(ctx));
  },
  { start: startAlertingGateway },
);

defineContractSuite<ReturnType<typeof restAlertsDriver>, LoggedAlertingGateway>(
  'alerts without Grafana',
  { rest: restAlertsDriver, graphql: graphqlAlertsDriver },
  (ctx) => {
    afterEach(() => ctx.gw.fx.reset());
    describe('legacy manager names', () => legacyManagerScenarios(ctx));
  },
  {
    env: LEGACY_MANAGER_ENV,
    start: async (env) => {
      const { stream, lines } = lineCollector();
      return { ...(await startAlertingGateway(env, { logStream: stream })), logs: lines };
    },
  },
);
