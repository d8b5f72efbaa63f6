import { graphqlSchemaInferenceDriver, restSchemaInferenceDriver } from './drivers/schema-inference.js';
import { defineContractSuite } from './harness.js';
import { SCHEMA_INFERENCE_ENV, schemaInferenceScenarios } from './schema-inference.js';

defineContractSuite('schema inference input rules', { rest: restSchemaInferenceDriver, graphql: graphqlSchemaInferenceDriver }, schemaInferenceScenarios, { env: SCHEMA_INFERENCE_ENV });
