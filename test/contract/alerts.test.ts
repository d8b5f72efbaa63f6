// One suite for alerting, so that each transport's run starts one gateway (with managers, SMTP and a
// webhook receiver of its own): silences, metric aliases, notification channels.
import { afterEach, describe } from '@jest/globals';
import { startAlertingGateway } from '../support/alerting.js';
import { channelScenarios } from './alert-channels.js';
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
