// How test/graphql/list-contract.test.ts reaches each list of the list contract: its root field, the
// node selection that names a row, and an INSERT that makes rows numbered n (n from 0 to 99). The
// scenarios themselves come from the list's declaration; a new list adds one entry here.
//
// Seeded values are chosen so that every filter selects some rows but not all, times tie in pairs (so
// the identifier breaks ties), and texts differ only in digits and case-free parts (so their order is
// the same under any collation the test database may use).
import { alertRuleList } from '../../src/modules/alert-rules/list.js';
import { channelList, metricAliasList, silenceList } from '../../src/modules/alerts/list.js';
import { auditList } from '../../src/modules/audit/list.js';
import { connectorList } from '../../src/modules/connectors/list.js';
import { datasetList } from '../../src/modules/datasets/list.js';
import { templateList } from '../../src/modules/templates/list.js';
import type { ListDeclaration } from '../../src/platform/lists/declaration.js';
import { graphql } from './api.js';
import type { TestGateway } from './gateway.js';

export interface ListHarness {
  /** A name for the test titles (the root field). */
  field: string;
  declaration: ListDeclaration;
  /** A node's fields that name its row. */
  node: string;
  /** The row a node names, as `key` columns joined by `|` (what `keyOfRow` makes of a table row). */
  keyOf: (node: Record<string, unknown>) => string;
  /** Inserts the rows numbered by `$1::int[]` (already present rows are left alone). */
  insert: string;
  /** The rows the list can show at all, as SQL over its table (the datasource pages: Live datasets). */
  scope?: string;
  /** Runs after rows are inserted (the datasource pages list only datasets whose datasource is made). */
  prepare?: (gw: TestGateway, numbers: readonly number[]) => Promise<void>;
}

/** Minute `m` after a base in the future (so no job sweeps the rows as expired). */
const at = (minutes: string) => `timestamptz '2027-03-01 00:00:00+00' + (${minutes}) * interval '1 minute'`;
const padded = "lpad(g::text, 2, '0')";
const created = at('g / 2');
const updated = at('(100 - g) / 3');

const DATASETS = `INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, denorm_sources,
      created_by, updated_by, created_date, updated_date, alias)
    SELECT 'lc_ds_' || ${padded}, CASE WHEN g % 4 = 1 THEN 'draft' ELSE 'live' END, 'Contract Dataset ' || ${padded}, CASE WHEN g % 5 = 0 THEN 'master' ELSE 'event' END,
           CASE g % 4 WHEN 1 THEN (CASE WHEN g % 8 = 1 THEN 'Draft' ELSE 'ReadyToPublish' END) WHEN 2 THEN 'Retired' ELSE 'Live' END,
           '{}', 'k', '{}', '{}', '[]', '[]', '{}', 'u', 'u', ${created}, ${updated}, CASE WHEN g % 3 = 0 THEN 'lc-alias-' || ${padded} END
      FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`;

/** Makes the datasource of each Live dataset among `numbers`, as the console's reset does. */
async function makeDatasources(gw: TestGateway, numbers: readonly number[]): Promise<void> {
  const ids = numbers.map((n) => `lc_ds_${String(n).padStart(2, '0')}`);
  const { rows } = await gw.sql<{ id: string }>("SELECT dataset_id AS id FROM datasets WHERE status = 'Live' AND dataset_id = ANY($1::text[])", [ids]);
  for (const { id } of rows) {
    const response = await graphql(gw, 'mutation($id: ID!) { resetDataset(id: $id, category: QUERY) { status } }', { id });
    if (response.errors) throw new Error(`resetDataset ${id}: ${JSON.stringify(response.errors)}`);
  }
}

const datasetKey = (node: Record<string, unknown>) => `${node.datasetId as string}|${((node.stage as string | undefined) ?? 'LIVE').toLowerCase()}`;

export const LIST_HARNESSES: readonly ListHarness[] = [
  {
    field: 'templates',
    declaration: templateList,
    node: 'templateId',
    keyOf: (node) => String(node.templateId),
    insert: `INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by, created_date, updated_date)
      SELECT 'lc_' || ${padded}, 'Contract Template ' || ${padded}, 'SELECT 1', CASE WHEN g % 3 = 0 THEN 'json' ELSE 'sql' END, 'user' || (g % 4), 'u', ${created}, ${updated}
        FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`,
  },
  { field: 'datasets', declaration: datasetList, node: 'datasetId stage', keyOf: datasetKey, insert: DATASETS, prepare: makeDatasources },
  {
    field: 'connectors',
    declaration: connectorList,
    node: 'connectorVersionId',
    keyOf: (node) => String(node.connectorVersionId),
    insert: `INSERT INTO connector_registry (id, connector_id, name, type, category, version, technology, runtime, status, ui_spec, created_by, updated_by, created_date, updated_date)
      SELECT 'lc-conn-' || ${padded} || '-1.0.0', 'lc-conn-' || ${padded}, 'Contract Connector ' || ${padded}, 'source', (ARRAY['Database','File','Stream'])[1 + g % 3], '1.0.0',
             'tech' || (g % 4), 'spark', (ARRAY['Live','Draft','Retired','InValidation'])[1 + g % 4], '{}', 'u', 'u', ${created}, ${updated}
        FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`,
  },
  {
    field: 'alertRules',
    declaration: alertRuleList,
    node: 'alertRuleId',
    keyOf: (node) => String(node.alertRuleId),
    insert: `INSERT INTO alert_rules (id, name, manager, status, metric, operator, thresholds, expression, severity, category, evaluation_interval_ms, pending_for_ms, context,
        created_by, updated_by, created_date, updated_date)
      SELECT md5('lc-rule' || g)::uuid, 'Contract Rule ' || ${padded}, (ARRAY['embedded','alertmanager'])[1 + g % 2], (ARRAY['draft','retired','live'])[1 + g % 3], 'm', 'gt', '{1}', 'm > 1',
             CASE WHEN g % 4 = 0 THEN 'critical' ELSE 'warning' END, 'category' || (g % 5), 60000, 0,
             jsonb_build_object('alertType', CASE g % 3 WHEN 0 THEN 'CUSTOM' WHEN 1 THEN 'SYSTEM' END), 'u', 'u', ${created}, ${updated}
        FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`,
  },
  {
    field: 'silences',
    declaration: silenceList,
    node: 'silenceId',
    keyOf: (node) => String(node.silenceId),
    insert: `INSERT INTO alert_silences (id, alert_id, manager, start_time, end_time, comment, created_by, updated_by, created_date, updated_date)
      SELECT md5('lc-silence' || g)::uuid, md5('lc-alert' || g)::uuid, (ARRAY['embedded','alertmanager','grafana'])[1 + g % 3], ${at('g / 3')}, ${at('500 - g / 2')}, 'c', 'u', 'u', ${created}, ${created}
        FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`,
  },
  {
    field: 'metricAliases',
    declaration: metricAliasList,
    node: 'metricAliasId',
    keyOf: (node) => String(node.metricAliasId),
    insert: `INSERT INTO metric_aliases (id, alias, component, sub_component, metric, created_by, updated_by, created_date, updated_date)
      SELECT md5('lc-metric' || g)::uuid, 'contract_alias_' || ${padded}, 'component' || (g % 4), CASE WHEN g % 3 <> 0 THEN 'part' || (g % 5) END, 'm', 'u', 'u', ${created}, ${updated}
        FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`,
  },
  {
    field: 'notificationChannels',
    declaration: channelList,
    node: 'channelId',
    keyOf: (node) => String(node.channelId),
    insert: `INSERT INTO notification_channels (id, manager, name, type, status, config, created_by, updated_by, created_date, updated_date)
      SELECT md5('lc-channel' || g)::uuid, (ARRAY['embedded','grafana'])[1 + g % 2], 'Contract Channel ' || ${padded}, (ARRAY['email','slack','teams'])[1 + g % 3],
             (ARRAY['draft','live','retired'])[1 + g % 3], '{}', 'u', 'u', ${created}, ${updated}
        FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`,
  },
  {
    // Seeded ids are far above the trail's own sequence; the calls the other harnesses' set-up made
    // are cleared, so the trail holds only numbered rows and the cursor scenarios land where they aim.
    field: 'auditRecords',
    declaration: auditList,
    node: 'auditRecordId',
    keyOf: (node) => String(node.auditRecordId),
    insert: `INSERT INTO audit_records (id, at, request_id, actor, transport, api_id, operation, target_id, outcome, error_code)
      SELECT 900000 + g, ${created}, 'lc-request-' || ${padded}, 'actor' || (g % 4), (ARRAY['graphql','rest'])[1 + g % 2], CASE WHEN g % 2 = 1 THEN 'api.contract.' || (g % 3) END,
             'contractOperation' || (g % 5), CASE WHEN g % 3 <> 0 THEN 'lc-target-' || ${padded} END, (ARRAY['success','failure'])[1 + g % 2], CASE WHEN g % 2 = 1 THEN 'CODE_' || (g % 3) END
        FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`,
    prepare: async (gw) => {
      await gw.sql('DELETE FROM audit_records WHERE id < 900000');
    },
  },
  { field: 'datasourcePage', declaration: datasetList, node: 'datasetId', keyOf: datasetKey, insert: DATASETS, scope: `"status" = 'Live'`, prepare: makeDatasources },
  { field: 'datasourceSizePage', declaration: datasetList, node: 'datasetId', keyOf: datasetKey, insert: DATASETS, scope: `"status" = 'Live'`, prepare: makeDatasources },
];
