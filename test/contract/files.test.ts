import { startStoreGateway } from '../support/connectors.js';
import { graphqlFilesDriver, restFilesDriver } from './drivers/files.js';
import { fileScenarios } from './files.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('file links', { rest: restFilesDriver, graphql: graphqlFilesDriver }, fileScenarios, { start: startStoreGateway });
