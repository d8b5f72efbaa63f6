// Every REST endpoint the gateway serves, one table.
import type { RestEndpoint } from './table.js';
import { alertEndpoints } from './alerts.js';
import { alertRuleEndpoints } from './alert-rules.js';
import { connectorEndpoints } from './connectors.js';
import { dataAccessEndpoints } from './data-access.js';
import { datasetEndpoints } from './datasets.js';
import { fileEndpoints } from './files.js';
import { ingestionEndpoints } from './ingestion.js';
import { metricsEndpoints } from './metrics.js';
import { piiEndpoints } from './pii.js';
import { dataschemaEndpoints } from './dataschema.js';
import { jobEndpoints } from './jobs.js';
import { templateEndpoints } from './templates.js';

export const restEndpoints: readonly RestEndpoint[] = [
  ...templateEndpoints,
  ...datasetEndpoints,
  ...dataschemaEndpoints,
  ...ingestionEndpoints,
  ...dataAccessEndpoints,
  ...connectorEndpoints,
  ...fileEndpoints,
  ...alertEndpoints,
  ...alertRuleEndpoints,
  ...piiEndpoints,
  ...metricsEndpoints,
  ...jobEndpoints,
];
