import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JWT_ENV } from '../support/auth.js';
import { graphqlQueryCall, sseQueryCall, wsQueryCall } from './drivers/graph-query.js';
import { defineContractSuite } from './harness.js';
import { DATASET_LISTER_ROLE, linkedFilterScenarios, listDriver } from './linked-filters.js';

// The house's roles and a role that may list datasets only (every house role that lists datasets may also list alert rules).
const policy = JSON.parse(readFileSync('config/permissions.json', 'utf8')) as { roles: Record<string, string[]>; groups: Record<string, string[]> };
policy.groups.datasetListing = ['api.datasets.list'];
policy.roles[DATASET_LISTER_ROLE] = ['datasetListing'];
const permissionsFile = path.join(mkdtempSync(path.join(tmpdir(), 'linked-filters-')), 'permissions.json');
writeFileSync(permissionsFile, JSON.stringify(policy));

defineContractSuite(
  'linked filters',
  { graphql: (gw) => listDriver(graphqlQueryCall(gw)), 'graphql-ws': (gw) => listDriver(wsQueryCall(gw)), 'graphql-sse': (gw) => listDriver(sseQueryCall(gw)) },
  linkedFilterScenarios,
  { env: { ...JWT_ENV, PERMISSIONS_FILE: permissionsFile } },
);
