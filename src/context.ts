// The per-request context, built by one factory for GraphQL over HTTP and for REST calls alike, so
// both transports get the same caller, loaders and services.
import type DataLoader from 'dataloader';
import type { Logger } from './logger.js';
import type { DatasetService, DatasetVersions } from './modules/datasets/service.js';
import type { SchemaInferenceService } from './modules/schema-inference/service.js';
import type { IngestionService } from './modules/ingestion/service.js';
import type { TemplateService } from './modules/templates/service.js';
import type { Actor, TemplateRecord } from './modules/templates/types.js';

export interface Services {
  templates: TemplateService;
  datasets: DatasetService;
  schemaInference: SchemaInferenceService;
  ingestion: IngestionService;
}

export interface GatewayContext {
  requestId: string;
  actor: Actor;
  logger: Logger;
  services: Services;
  loaders: {
    templateById: DataLoader<string, TemplateRecord | undefined>;
    datasetVersions: DataLoader<string, DatasetVersions>;
  };
}

export function createContextFactory(services: Services, logger: Logger) {
  return (requestId: string): GatewayContext => ({
    requestId,
    // Until authentication lands (issue 10), every caller acts as SYSTEM, like the original with RBAC off.
    actor: { id: 'SYSTEM' },
    logger: logger.child({ requestId }),
    services,
    loaders: { templateById: services.templates.createLoader(), datasetVersions: services.datasets.createLoader() },
  });
}

export type ContextFactory = ReturnType<typeof createContextFactory>;
