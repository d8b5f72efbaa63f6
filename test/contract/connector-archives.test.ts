import { startStoreGateway } from '../support/connectors.js';
import { HOSTILE_ENV } from '../support/hostile-archives.js';
import { archiveScenarios } from './connector-archives.js';
import { graphqlArchivesDriver, restArchivesDriver } from './drivers/connector-archives.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('connector archives', { rest: restArchivesDriver, graphql: graphqlArchivesDriver }, archiveScenarios, { start: startStoreGateway, env: HOSTILE_ENV });
