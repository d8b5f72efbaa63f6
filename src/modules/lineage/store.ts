// One statement per level of a lineage traversal: every edge of every record on the frontier, both
// ways at once, for all the records a page asks about. Lineage spans the tables of four domains
// (datasets, templates, alert rules, connectors), as search does, so it reads them in one statement
// rather than through four services (which would cost four statements per level). The links it
// follows are the ones the lists declare (templateDatasetLink, ruleDatasetLink: their expressions
// are indexed), so the two can never disagree on which template reads which dataset.
import type pg from 'pg';
import { ruleDatasetLink } from '../alert-rules/index.js';
import { templateDatasetLink } from '../templates/index.js';
import type { LineageEdgeKind, LineageLink, LineageNodeType, LineageWay } from './types.js';

/** The records whose edges a level reads, by way and type (only the types that have edges that way). */
export interface LineageFrontier {
  upstreamOf: { datasets: string[]; templates: string[]; rules: string[] };
  downstreamOf: { datasets: string[]; connectors: string[] };
}

export interface FoundLink extends LineageLink {
  /** The way it was found: from its `to` (UPSTREAM) or its `from` (DOWNSTREAM). */
  way: LineageWay;
}

const QUERY_NAMES = templateDatasetLink.parentKey;
const RULE_DATASET = ruleDatasetLink.parentKey;
/** The row of a dataset lineage reads: its Live version, or its Draft when it never went Live. */
const CURRENT = (alias: string) => `(${alias}.stage = 'live' OR NOT EXISTS (SELECT 1 FROM datasets l WHERE l.dataset_id = ${alias}.dataset_id AND l.stage = 'live'))`;
/** The connector references of a dataset row (its connectors_config items' connector_id). */
const CONNECTOR_REFS = (alias: string) => `json_array_elements(CASE WHEN json_typeof(${alias}.connectors_config) = 'array' THEN ${alias}.connectors_config ELSE '[]'::json END) AS c(item)`;
/** The registry version a reference names: a version id, else the Live version of a connector id (the connector loader's rule). */
const CONNECTOR_OF = (ref: string) =>
  `LATERAL (SELECT cr.id FROM connector_registry cr WHERE cr.id = ${ref} OR (cr.connector_id = ${ref} AND cr.status = 'Live') ORDER BY (cr.id = ${ref}) DESC LIMIT 1) AS cr`;

// Each branch runs only when its frontier is not empty (a one-time filter on the parameter).
const LEVEL_SQL = `
SELECT 'UPSTREAM' AS way, 'DENORM_SOURCE' AS kind, 'Dataset' AS from_type, src AS from_key, 'Dataset' AS to_type, d.dataset_id AS to_key
  FROM datasets d CROSS JOIN LATERAL unnest(d.denorm_sources) AS src
 WHERE cardinality($1::text[]) > 0 AND d.dataset_id = ANY($1) AND ${CURRENT('d')} AND EXISTS (SELECT 1 FROM datasets m WHERE m.dataset_id = src)
UNION
SELECT 'UPSTREAM', 'CONNECTOR_FEEDS', 'Connector', cr.id, 'Dataset', d.dataset_id
  FROM datasets d CROSS JOIN LATERAL ${CONNECTOR_REFS('d')} CROSS JOIN ${CONNECTOR_OF("(c.item->>'connector_id')")}
 WHERE cardinality($1::text[]) > 0 AND d.dataset_id = ANY($1) AND ${CURRENT('d')}
UNION
SELECT 'UPSTREAM', 'TEMPLATE_READS', 'Dataset', d.dataset_id, 'QueryTemplate', t.template_id
  FROM query_templates t CROSS JOIN LATERAL unnest(${QUERY_NAMES}) AS n JOIN datasets d ON d.dataset_id = n
 WHERE cardinality($2::text[]) > 0 AND t.template_id = ANY($2)
UNION
SELECT 'UPSTREAM', 'RULE_WATCHES', 'Dataset', d.dataset_id, 'AlertRule', r.id::text
  FROM alert_rules r JOIN datasets d ON d.dataset_id = ${RULE_DATASET}
 WHERE cardinality($3::uuid[]) > 0 AND r.id = ANY($3::uuid[])
UNION
SELECT 'DOWNSTREAM', 'DENORM_SOURCE', 'Dataset', src, 'Dataset', d.dataset_id
  FROM datasets d CROSS JOIN LATERAL unnest(d.denorm_sources) AS src
 WHERE cardinality($4::text[]) > 0 AND d.denorm_sources && $4::text[] AND src = ANY($4) AND ${CURRENT('d')}
UNION
SELECT 'DOWNSTREAM', 'TEMPLATE_READS', 'Dataset', n, 'QueryTemplate', t.template_id
  FROM query_templates t CROSS JOIN LATERAL unnest(${QUERY_NAMES}) AS n
 WHERE cardinality($4::text[]) > 0 AND ${QUERY_NAMES} && $4::text[] AND n = ANY($4)
UNION
SELECT 'DOWNSTREAM', 'RULE_WATCHES', 'Dataset', ${RULE_DATASET}, 'AlertRule', r.id::text
  FROM alert_rules r
 WHERE cardinality($4::text[]) > 0 AND ${RULE_DATASET} = ANY($4)
UNION
SELECT 'DOWNSTREAM', 'CONNECTOR_FEEDS', 'Connector', cr.id, 'Dataset', d.dataset_id
  FROM datasets d CROSS JOIN LATERAL ${CONNECTOR_REFS('d')} CROSS JOIN ${CONNECTOR_OF("(c.item->>'connector_id')")}
 WHERE cardinality($5::text[]) > 0 AND cr.id = ANY($5) AND ${CURRENT('d')}`;

interface LinkRow {
  way: LineageWay;
  kind: LineageEdgeKind;
  from_type: LineageNodeType;
  from_key: string;
  to_type: LineageNodeType;
  to_key: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createLineageStore(pool: pg.Pool) {
  return {
    /** Every edge of the frontier's records, in one statement. */
    async level(frontier: LineageFrontier): Promise<FoundLink[]> {
      const { upstreamOf, downstreamOf } = frontier;
      const { rows } = await pool.query<LinkRow>(LEVEL_SQL, [
        upstreamOf.datasets,
        upstreamOf.templates,
        // A rule id that is no UUID names no rule (and would fail the cast).
        upstreamOf.rules.filter((id) => UUID.test(id)),
        downstreamOf.datasets,
        downstreamOf.connectors,
      ]);
      return rows.map((row) => ({ way: row.way, kind: row.kind, from: { type: row.from_type, key: row.from_key }, to: { type: row.to_type, key: row.to_key } }));
    },
  };
}

export type LineageStore = ReturnType<typeof createLineageStore>;
