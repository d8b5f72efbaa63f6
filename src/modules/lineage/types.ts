// Lineage: which records feed which. Data flows from UPSTREAM to DOWNSTREAM along four kinds of edge:
// a connector feeds a dataset, a master dataset is a denorm source of another, a dataset is read by
// a template and watched by an alert rule.

export const LINEAGE_DIRECTIONS = ['UPSTREAM', 'DOWNSTREAM'] as const;
/** One way of a traversal. */
export type LineageWay = (typeof LINEAGE_DIRECTIONS)[number];
/** What a caller asks for: one way, or both (each traversed on its own). */
export type LineageDirection = LineageWay | 'BOTH';

export type LineageEdgeKind = 'CONNECTOR_FEEDS' | 'DENORM_SOURCE' | 'TEMPLATE_READS' | 'RULE_WATCHES';

/** The records lineage links. */
export type LineageNodeType = 'Dataset' | 'QueryTemplate' | 'AlertRule' | 'Connector';

export const LINEAGE_MIN_DEPTH = 1;
export const LINEAGE_MAX_DEPTH = 5;

/** A record of the graph: its type and natural key (a dataset id, template id, rule id, connector version id). */
export interface LineageRef {
  type: LineageNodeType;
  key: string;
}

/** An edge as data flows: `from` is upstream of `to`. */
export interface LineageLink {
  kind: LineageEdgeKind;
  from: LineageRef;
  to: LineageRef;
}

export interface LineageNode extends LineageRef {
  /** Hops from the record asked about (1 for a direct neighbour). */
  degree: number;
  direction: LineageWay;
}

export interface LineageEdge extends LineageLink {
  /** The hop at which the traversal crossed it (1 for the record's own edges). */
  degree: number;
  direction: LineageWay;
}

export interface Lineage {
  direction: LineageDirection;
  depth: number;
  nodes: LineageNode[];
  edges: LineageEdge[];
}

export const refKey = (ref: LineageRef): string => `${ref.type}:${ref.key}`;
