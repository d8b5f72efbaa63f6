// How test/graphql/list-contract.test.ts reaches each list of the list contract: its root field (or,
// for a list under an item, the item and its field), the node selection that names a row, and an
// INSERT that makes rows numbered n (n from 0 to 99). The scenarios themselves come from the list's
// declaration; a new list adds one entry here.
//
// Seeded values are chosen so that every filter selects some rows but not all, times tie in pairs (so
// the identifier breaks ties), and texts differ only in digits and case-free parts (so their order is
// the same under any collation the test database may use).
import { alertRuleList, notificationList, ruleDatasetLink } from '../../src/modules/alert-rules/index.js';
import { channelList, metricAliasList, silenceList } from '../../src/modules/alerts/index.js';
import { auditList } from '../../src/modules/audit/index.js';
import { connectorList } from '../../src/modules/connectors/index.js';
import { linkedDatasetList as datasetList } from '../../src/graphql/lists.js';
import { templateDatasetLink, templateList } from '../../src/modules/templates/index.js';
import type { ListDeclaration } from '../../src/platform/lists/declaration.js';
import { graphql } from './api.js';
import type { TestGateway } from './gateway.js';

export interface ListHarness {
  /** The list's field: a root field, or with `parent` a field of the parent's type. */
  field: string;
  /**
   * For a list under an item (a nested connection): the parent's type (for the titles), the root
   * selection that reaches one parent, `LIST` standing for the list's own selection, and where that
   * parent is in the answer. `scope` then narrows the table to that parent's items.
   */
  parent?: { type: string; selection: string; path: readonly string[] };
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

// Datasets hold tags (a third none: empty or NULL), and some have ingestion counters (issue 49's linked filters).
const DATASETS = `WITH counters AS (
      INSERT INTO ingestion_counters (dataset_id, requests, received, processed, duplicates, failed, rejected_requests)
        SELECT 'lc_ds_' || ${padded}, g, g * 10, g * 9, 0, g % 7, 0 FROM unnest($1::int[]) g WHERE g % 4 <> 2 ON CONFLICT DO NOTHING)
    INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, denorm_sources,
      created_by, updated_by, created_date, updated_date, alias)
    SELECT 'lc_ds_' || ${padded}, CASE WHEN g % 4 = 1 THEN 'draft' ELSE 'live' END, 'Contract Dataset ' || ${padded}, CASE WHEN g % 5 = 0 THEN 'master' ELSE 'event' END,
           CASE g % 4 WHEN 1 THEN (CASE WHEN g % 8 = 1 THEN 'Draft' ELSE 'ReadyToPublish' END) WHEN 2 THEN 'Retired' ELSE 'Live' END,
           CASE g % 3 WHEN 0 THEN ARRAY['finance', 'pii'] WHEN 1 THEN ARRAY['Finance'] ELSE (CASE WHEN g % 2 = 0 THEN NULL ELSE '{}'::text[] END) END, 'k', '{}', '{}', '[]', '[]', '{}', 'u', 'u', ${created}, ${updated},
           CASE WHEN g % 3 = 0 THEN 'lc-alias-' || ${padded} END
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

// Two thirds of the templates name the dataset lc_ds_03 (a Live one of DATASETS), the others lc_ds_04:
// Dataset.templatePage lists the first. Of the numbers the cursor scenarios add, 0, 98 and 99 name lc_ds_03.
const TEMPLATES = `INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by, created_date, updated_date)
      SELECT 'lc_' || ${padded}, 'Contract Template ' || ${padded}, 'SELECT * FROM ' || CASE WHEN g % 3 = 1 THEN 'lc_ds_04' ELSE 'lc_ds_03' END || ' WHERE {{STARTDATE}}',
             CASE WHEN g % 3 = 0 THEN 'json' ELSE 'sql' END, 'user' || (g % 4), 'u', ${created}, ${updated}
        FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`;

// AlertRule.notificationPage: the notifications of one rule, made with it; every seventh belongs to
// another rule (not one the cursor scenarios add: 0, 97, 98, 99). The two rules are created at
// minute 7, in the middle of the alertRules harness's rules, where its cursor scenarios delete none
// (a deleted rule would take its notifications with it).
const NOTIFIED_RULE = '6c0a1e57-0000-4000-8000-000000000001';
const OTHER_NOTIFIED_RULE = '6c0a1e57-0000-4000-8000-000000000002';
const NOTIFICATIONS = `WITH rules AS (
      INSERT INTO alert_rules (id, name, manager, status, metric, operator, thresholds, expression, severity, category, evaluation_interval_ms, pending_for_ms, context,
          created_by, updated_by, created_date, updated_date)
        SELECT rule.id::uuid, 'Contract Notified Rule ' || rule.n, 'embedded', 'live', 'm', 'gt', '{1}', 'm > 1', 'warning', 'category' || rule.n, 60000, 0, '{}', 'u', 'u', ${at('7')}, ${at('7')}
          FROM (VALUES ('${NOTIFIED_RULE}', 1), ('${OTHER_NOTIFIED_RULE}', 2)) AS rule(id, n)
        ON CONFLICT DO NOTHING)
    INSERT INTO alert_notifications (id, rule_id, channel_id, kind, evaluated_at, outcome, subject, text, transport, attempts, created_date)
      SELECT md5('lc-notification' || g)::uuid, (CASE WHEN g % 7 = 3 THEN '${OTHER_NOTIFIED_RULE}' ELSE '${NOTIFIED_RULE}' END)::uuid, md5('lc-notified-channel' || (g % 3))::uuid,
             (ARRAY['firing','repeat','resolved'])[1 + g % 3], ${at('(100 - g) / 3')}, (ARRAY['pending','sent','failed','silenced'])[1 + g % 4], 's', 't',
             CASE WHEN g % 4 = 1 THEN (ARRAY['smtp','webhook','outbox'])[1 + g % 3] END, g % 3, ${created}
        FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`;

// Most rules are about the dataset lc_ds_03 (Dataset.alertRulePage lists them), by label or by context as
// the platform writes them; every fifth (2, 7, ...) is about lc_ds_07. The numbers the cursor scenarios
// add are about lc_ds_03 but 97.
const RULES = `INSERT INTO alert_rules (id, name, manager, status, metric, operator, thresholds, expression, severity, category, evaluation_interval_ms, pending_for_ms, labels, context,
        created_by, updated_by, created_date, updated_date)
      SELECT md5('lc-rule' || g)::uuid, 'Contract Rule ' || ${padded}, (ARRAY['embedded','alertmanager'])[1 + g % 2], (ARRAY['draft','retired','live'])[1 + g % 3], 'm', 'gt', '{1}', 'm > 1',
             CASE WHEN g % 4 = 0 THEN 'critical' ELSE 'warning' END, 'category' || (g % 5), 60000, 0,
             CASE WHEN g % 2 = 0 THEN jsonb_build_object('dataset', CASE WHEN g % 5 = 2 THEN 'lc_ds_07' ELSE 'lc_ds_03' END) ELSE '{}' END,
             jsonb_build_object('alertType', CASE g % 3 WHEN 0 THEN 'CUSTOM' WHEN 1 THEN 'SYSTEM' END)
               || CASE WHEN g % 2 = 1 THEN jsonb_build_object('datasetId', CASE WHEN g % 5 = 2 THEN 'lc_ds_07' ELSE 'lc_ds_03' END) ELSE '{}' END,
             'u', 'u', ${created}, ${updated}
        FROM unnest($1::int[]) g ON CONFLICT DO NOTHING`;

export const LIST_HARNESSES: readonly ListHarness[] = [
  { field: 'templates', declaration: templateList, node: 'templateId', keyOf: (node) => String(node.templateId), insert: TEMPLATES },
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
  { field: 'alertRules', declaration: alertRuleList, node: 'alertRuleId', keyOf: (node) => String(node.alertRuleId), insert: RULES },
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
  {
    field: 'alertRulePage',
    parent: { type: 'Dataset', selection: 'dataset(id: "lc_ds_03") { LIST }', path: ['dataset'] },
    declaration: alertRuleList,
    node: 'alertRuleId',
    keyOf: (node) => String(node.alertRuleId),
    insert: RULES,
    scope: `${ruleDatasetLink.parentKey} = 'lc_ds_03'`,
  },
  {
    field: 'notificationPage',
    parent: { type: 'AlertRule', selection: `alertRule(id: "${NOTIFIED_RULE}") { LIST }`, path: ['alertRule'] },
    declaration: notificationList,
    node: 'notificationId',
    keyOf: (node) => String(node.notificationId),
    insert: NOTIFICATIONS,
    scope: `"rule_id" = '${NOTIFIED_RULE}'`,
  },
  {
    field: 'templatePage',
    parent: { type: 'Dataset', selection: 'dataset(id: "lc_ds_03") { LIST }', path: ['dataset'] },
    declaration: templateList,
    node: 'templateId',
    keyOf: (node) => String(node.templateId),
    insert: TEMPLATES,
    scope: `${templateDatasetLink.parentKey} @> ARRAY['lc_ds_03']`,
  },
  { field: 'datasourcePage', declaration: datasetList, node: 'datasetId', keyOf: datasetKey, insert: DATASETS, scope: `"status" = 'Live'`, prepare: makeDatasources },
  { field: 'datasourceSizePage', declaration: datasetList, node: 'datasetId', keyOf: datasetKey, insert: DATASETS, scope: `"status" = 'Live'`, prepare: makeDatasources },
];
