import { JWT_ENV } from '../support/auth.js';
import { graphqlSearchDriver, sseSearchDriver, wsSearchDriver } from './drivers/search.js';
import { defineContractSuite } from './harness.js';
import { searchScenarios } from './search.js';

defineContractSuite('search', { graphql: graphqlSearchDriver, 'graphql-ws': wsSearchDriver, 'graphql-sse': sseSearchDriver }, searchScenarios, { env: JWT_ENV });
