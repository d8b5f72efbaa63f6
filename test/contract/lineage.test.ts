import { projectPath } from '../../src/paths.js';
import { JWT_ENV } from '../support/auth.js';
import { graphqlLineageDriver, sseLineageDriver, wsLineageDriver } from './drivers/lineage.js';
import { defineContractSuite } from './harness.js';
import { lineageScenarios } from './lineage.js';

defineContractSuite('lineage', { graphql: graphqlLineageDriver, 'graphql-ws': wsLineageDriver, 'graphql-sse': sseLineageDriver }, lineageScenarios, {
  env: { ...JWT_ENV, PERMISSIONS_FILE: projectPath('test', 'contract', 'lineage-permissions.json') },
});
