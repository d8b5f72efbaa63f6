// The two transports of the connector scenarios, answering in the REST contract's spelling
// (snake_case, Live, Database). The REST driver also holds every record to the fields contract 2.4
// gives it: a list result has technology and runtime but no ui_spec, a read the reverse. The GraphQL
// driver asks for the same fields and spells the enums back; a list asks for up to 1000 versions.
import { expect } from '@jest/globals';
import { envelope, graphql } from '../../support/api.js';
import type { StoreGateway } from '../../support/connectors.js';
import type { ConnectorCategory, ConnectorRecord, ConnectorsDriver, ConnectorStatus } from '../connectors.js';
import { graphqlServiceOutcome, mapOutcome, restOutcome } from '../harness.js';
import { graphqlArchivesDriver, restArchivesDriver } from './connector-archives.js';

const COMMON_KEYS = [
  'category',
  'connector_id',
  'created_by',
  'created_date',
  'description',
  'iconurl',
  'id',
  'licence',
  'live_date',
  'name',
  'owner',
  'status',
  'type',
  'updated_by',
  'updated_date',
  'version',
];
const LIST_KEYS = [...COMMON_KEYS, 'runtime', 'technology'].sort();
const READ_KEYS = [...COMMON_KEYS, 'ui_spec'].sort();

export function restConnectorsDriver(gw: StoreGateway): ConnectorsDriver {
  return {
    ...restArchivesDriver(gw),
    async list(filters) {
      const outcome = restOutcome<{ data: ConnectorRecord[]; count: number }>(await gw.http.post('/v2/connectors/list').send(envelope('api.connectors.list', filters && { filters })));
      if (outcome.ok) for (const connector of outcome.value.data) expect(Object.keys(connector).sort()).toEqual(LIST_KEYS);
      return outcome;
    },
    async read(id, { draft } = {}) {
      const outcome = restOutcome<ConnectorRecord>(await gw.http.get(`/v2/connectors/read/${encodeURIComponent(id)}${draft ? '?mode=edit' : ''}`));
      if (outcome.ok) expect(Object.keys(outcome.value).sort()).toEqual(READ_KEYS);
      return outcome;
    },
  };
}

const STATUS: Record<string, ConnectorStatus> = { DRAFT: 'Draft', IN_VALIDATION: 'InValidation', LIVE: 'Live', RETIRED: 'Retired' };
const CATEGORY: Record<string, ConnectorCategory> = { DATABASE: 'Database', FILE: 'File', STREAM: 'Stream' };
const enumName = (values: Record<string, string>, value: string) => Object.keys(values).find((name) => values[name] === value);

const FIELDS = 'id: connectorVersionId connectorId name type category version description licence owner iconUrl status createdBy updatedBy createdAt updatedAt liveAt';

interface Connector {
  id: string;
  connectorId: string;
  name: string;
  type: string;
  category: string;
  version: string;
  description: string | null;
  licence: string | null;
  owner: string | null;
  iconUrl: string | null;
  status: string;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
  liveAt: string | null;
  technology?: string;
  runtime?: string;
  uiSpec?: Record<string, any>;
}

function asRecord({ connectorId, iconUrl, createdBy, updatedBy, createdAt, updatedAt, liveAt, uiSpec, ...same }: Connector): ConnectorRecord {
  return {
    ...same,
    connector_id: connectorId,
    iconurl: iconUrl,
    created_by: createdBy,
    updated_by: updatedBy,
    created_date: createdAt,
    updated_date: updatedAt,
    live_date: liveAt,
    category: CATEGORY[same.category]!,
    status: STATUS[same.status]!,
    ...(uiSpec === undefined ? {} : { ui_spec: uiSpec }),
  };
}

export function graphqlConnectorsDriver(gw: StoreGateway): ConnectorsDriver {
  return {
    ...graphqlArchivesDriver(gw),
    async list(filters) {
      const filter = filters && {
        status: filters.status?.map((status) => enumName(STATUS, status)),
        category: filters.category?.map((category) => enumName(CATEGORY, category)),
      };
      const response = await graphql(gw, `query($filter: ConnectorFilter) { connectors(filter: $filter, first: 1000) { totalCount nodes { ${FIELDS} technology runtime } } }`, { filter });
      return mapOutcome(graphqlServiceOutcome<{ totalCount: number; nodes: Connector[] }>(response, 'connectors'), ({ totalCount, nodes }) => ({ data: nodes.map(asRecord), count: totalCount }));
    },
    async read(id, { draft } = {}) {
      // Without a status, connector() reads the Live version (the argument's default).
      const response = await graphql(gw, `query($id: ID!) { connector(id: $id${draft ? ', status: DRAFT' : ''}) { ${FIELDS} uiSpec } }`, { id });
      return mapOutcome(graphqlServiceOutcome<Connector>(response, 'connector'), asRecord);
    },
  };
}
