import { startStoreGateway } from '../support/connectors.js';
import { graphqlExhaustDriver, restExhaustDriver } from './drivers/exhaust.js';
import { exhaustScenarios } from './exhaust.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('exhaust', { rest: restExhaustDriver, graphql: graphqlExhaustDriver }, exhaustScenarios, { start: startStoreGateway });
