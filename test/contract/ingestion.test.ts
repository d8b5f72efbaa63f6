import { graphqlIngestionDriver, restIngestionDriver } from './drivers/ingestion.js';
import { defineContractSuite } from './harness.js';
import { INGEST_LIMITS_ENV, ingestionScenarios } from './ingestion.js';

defineContractSuite('ingestion', { rest: restIngestionDriver, graphql: graphqlIngestionDriver }, ingestionScenarios, { env: INGEST_LIMITS_ENV });
