import { startStoreGateway } from '../support/connectors.js';
import { connectorScenarios } from './connectors.js';
import { graphqlConnectorsDriver, restConnectorsDriver } from './drivers/connectors.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('connectors', { rest: restConnectorsDriver, graphql: graphqlConnectorsDriver }, connectorScenarios, { start: startStoreGateway });
