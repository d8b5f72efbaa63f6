// One suite for the templates domain, so that each transport's run starts one gateway: the
// templates themselves, then runs of them.
import { describe } from '@jest/globals';
import { graphqlTemplateRunDriver, restTemplateRunDriver } from './drivers/template-run.js';
import { graphqlTemplatesDriver, restTemplatesDriver } from './drivers/templates.js';
import { defineContractSuite } from './harness.js';
import { templateRunScenarios } from './template-run.js';
import { templatesScenarios } from './templates.js';

defineContractSuite(
  'query templates',
  {
    rest: (gw) => ({ ...restTemplatesDriver(gw), ...restTemplateRunDriver(gw) }),
    graphql: (gw) => ({ ...graphqlTemplatesDriver(gw), ...graphqlTemplateRunDriver(gw) }),
  },
  (ctx) => {
    templatesScenarios(ctx);
    describe('runs', () => templateRunScenarios(ctx));
  },
);
