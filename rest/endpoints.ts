// Every REST endpoint the gateway serves, one table.
import type { RestEndpoint } from './table.js';
import { datasetEndpoints } from './datasets.js';
import { ingestionEndpoints } from './ingestion.js';
import { dataschemaEndpoints } from './dataschema.js';
import { templateEndpoints } from './templates.js';

export const restEndpoints: readonly RestEndpoint[] = [...templateEndpoints, ...datasetEndpoints, ...dataschemaEndpoints, ...ingestionEndpoints];
