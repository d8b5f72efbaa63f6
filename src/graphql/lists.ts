// Every list of the list contract, for the SDL printed from them (graphql/lists.graphql, written by
// `npm run generate:docs`), for the query cost (which prices a count by its list's table) and for
// the tests that hold each list to its declaration.
import { getNamedType, type GraphQLNamedType, isObjectType } from 'graphql';
import { alertRuleList, datasetAlertFields, notificationList } from '../modules/alert-rules/index.js';
import { channelList, metricAliasList, silenceList } from '../modules/alerts/index.js';
import { auditList } from '../modules/audit/index.js';
import { connectorList } from '../modules/connectors/index.js';
import { datasetList } from '../modules/datasets/index.js';
import { datasetIngestionFields } from '../modules/ingestion/index.js';
import { templateList } from '../modules/templates/index.js';
import type { ListDeclaration, ListField } from '../platform/lists/declaration.js';
import { listContractSdl, type ListSdlOptions } from './list-sdl.js';

/** The dataset list with the fields read through its links: its alert rules' severities and states, its ingestion counters (issue 49). */
export const linkedDatasetList: ListDeclaration = { ...datasetList, fields: { ...datasetList.fields, ...datasetIngestionFields, ...datasetAlertFields } };

export const LIST_DECLARATIONS: readonly { declaration: ListDeclaration; options?: ListSdlOptions }[] = [
  { declaration: templateList },
  { declaration: linkedDatasetList, options: { alsoPagedBy: { DatasourceConnection: 'Live datasets', DatasourceSizeConnection: 'Live datasets' } } },
  { declaration: connectorList },
  { declaration: alertRuleList, options: { ownOrderInput: true } },
  { declaration: silenceList },
  { declaration: metricAliasList },
  { declaration: channelList, options: { ownOrderInput: true } },
  { declaration: auditList, options: { groupAdvice: 'Narrow a long trail first, e.g. by time.' } },
  { declaration: notificationList },
];

/**
 * The filters whose fields read beyond their list's table (ListField.reads), by input type
 * (`DatasetWhere` → its linked fields): for the kept answers (published-reads.ts) and the guard that
 * admits a caller to each (src/auth/filter-guard.ts).
 */
export const FILTER_READS: Readonly<Record<string, Readonly<Record<string, NonNullable<ListField['reads']>>>>> = Object.fromEntries(
  LIST_DECLARATIONS.flatMap(({ declaration }) => {
    const linked = Object.entries(declaration.fields).flatMap(([name, field]) => (field.reads ? [[name, field.reads] as const] : []));
    return linked.length > 0 ? [[`${declaration.type}Where`, Object.fromEntries(linked)]] : [];
  }),
);

export const LIST_SDL_FILE = 'graphql/lists.graphql';

export function listSdlText(): string {
  return listContractSdl(LIST_DECLARATIONS);
}

const GROUP_FIELD = 'GroupField';
const listsByType = new Map(LIST_DECLARATIONS.map(({ declaration }) => [declaration.type, declaration]));

/**
 * The list a connection type pages, known by its `groupBy(field: <Type>GroupField!)` (a nested
 * connection and the datasource pages count the rows of the list they share the group field with);
 * undefined for any other type.
 */
export function listOfConnection(type: GraphQLNamedType): ListDeclaration | undefined {
  if (!isObjectType(type)) return undefined;
  const argument = type.getFields().groupBy?.args.find((arg) => arg.name === 'field');
  const name = argument ? getNamedType(argument.type).name : '';
  return name.endsWith(GROUP_FIELD) ? listsByType.get(name.slice(0, -GROUP_FIELD.length)) : undefined;
}
