import { JWT_ENV } from '../support/auth.js';
import { graphqlHistoryDriver, sseHistoryDriver, wsHistoryDriver } from './drivers/history.js';
import { defineContractSuite } from './harness.js';
import { historyScenarios } from './history.js';

defineContractSuite('history', { graphql: graphqlHistoryDriver, 'graphql-ws': wsHistoryDriver, 'graphql-sse': sseHistoryDriver }, historyScenarios, { env: JWT_ENV });
