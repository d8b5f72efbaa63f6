import { consoleWizardScenarios } from './console-wizard.js';
import { graphqlWizardDriver, restWizardDriver } from './drivers/console-wizard.js';
import { defineContractSuite } from './harness.js';

defineContractSuite('console wizard', { rest: restWizardDriver, graphql: graphqlWizardDriver }, consoleWizardScenarios);
