// Every list of the list contract, for the SDL printed from them (graphql/lists.graphql, written by
// `npm run generate:docs`) and for the tests that hold each list to its declaration.
import { alertRuleList, notificationList } from '../modules/alert-rules/list.js';
import { channelList, metricAliasList, silenceList } from '../modules/alerts/list.js';
import { auditList } from '../modules/audit/list.js';
import { connectorList } from '../modules/connectors/list.js';
import { datasetList } from '../modules/datasets/list.js';
import { templateList } from '../modules/templates/list.js';
import type { ListDeclaration } from '../platform/lists/declaration.js';
import { listContractSdl, type ListSdlOptions } from './list-sdl.js';

export const LIST_DECLARATIONS: readonly { declaration: ListDeclaration; options?: ListSdlOptions }[] = [
  { declaration: templateList },
  { declaration: datasetList },
  { declaration: connectorList },
  { declaration: alertRuleList, options: { ownOrderInput: true } },
  { declaration: silenceList },
  { declaration: metricAliasList },
  { declaration: channelList, options: { ownOrderInput: true } },
  { declaration: auditList },
  { declaration: notificationList },
];

export const LIST_SDL_FILE = 'graphql/lists.graphql';

export function listSdlText(): string {
  return listContractSdl(LIST_DECLARATIONS);
}
