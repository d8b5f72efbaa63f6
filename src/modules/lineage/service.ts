// Lineage traversal: breadth first, one level at a time, for every record a request asks about at
// once (a DataLoader batch): each level is one statement (store.ts) whatever the number of records,
// so a page of 50 datasets with lineage of depth 2 costs 2 statements for its lineage. A record is
// visited once per traversal (its degree is the hop it was first reached at), so cycles end.
// Access: records of a type the caller may not read are neither shown nor traversed through (what
// lies beyond them is not reached through them), and an edge to one is not shown.
import DataLoader from 'dataloader';
import { GatewayError } from '../../errors.js';
import type { LineageStore, FoundLink, LineageFrontier } from './store.js';
import {
  LINEAGE_DIRECTIONS,
  LINEAGE_MAX_DEPTH,
  LINEAGE_MIN_DEPTH,
  refKey,
  type Lineage,
  type LineageDirection,
  type LineageEdge,
  type LineageNode,
  type LineageNodeType,
  type LineageRef,
  type LineageWay,
} from './types.js';

export interface LineageRequest {
  root: LineageRef;
  direction: LineageDirection;
  depth: number;
  /** The types the caller may read. */
  readable: ReadonlySet<LineageNodeType>;
}

/** Refuses a depth outside 1..5, naming it (a GraphQL Int is already an integer). */
export function checkDepth(depth: number): void {
  if (!Number.isInteger(depth) || depth < LINEAGE_MIN_DEPTH || depth > LINEAGE_MAX_DEPTH) {
    throw new GatewayError('LINEAGE_INVALID_INPUT', `depth must be an integer from ${LINEAGE_MIN_DEPTH} to ${LINEAGE_MAX_DEPTH}; ${depth} was given`);
  }
}

/** One way of one request, as it goes. */
interface Walk {
  request: LineageRequest;
  way: LineageWay;
  seen: Map<string, LineageNode | null>;
  frontier: LineageRef[];
  nodes: LineageNode[];
  edges: LineageEdge[];
}

/** The records the links of one way lead to from `ref`, and the far end of each. */
const far = (link: FoundLink, way: LineageWay): LineageRef => (way === 'UPSTREAM' ? link.from : link.to);
const near = (link: FoundLink, way: LineageWay): LineageRef => (way === 'UPSTREAM' ? link.to : link.from);

/** The records of the walks' frontiers whose edges are not known yet, by way and type. */
function frontierOf(walks: Walk[], known: Set<string>): LineageFrontier {
  const frontier: LineageFrontier = { upstreamOf: { datasets: [], templates: [], rules: [] }, downstreamOf: { datasets: [], connectors: [] } };
  const lists: Record<LineageWay, Partial<Record<LineageNodeType, string[]>>> = {
    UPSTREAM: { Dataset: frontier.upstreamOf.datasets, QueryTemplate: frontier.upstreamOf.templates, AlertRule: frontier.upstreamOf.rules },
    DOWNSTREAM: { Dataset: frontier.downstreamOf.datasets, Connector: frontier.downstreamOf.connectors },
  };
  for (const walk of walks) {
    for (const ref of walk.frontier) {
      const id = `${walk.way}|${refKey(ref)}`;
      if (known.has(id)) continue;
      known.add(id);
      lists[walk.way][ref.type]?.push(ref.key);
    }
  }
  return frontier;
}

async function traverse(store: LineageStore, requests: readonly LineageRequest[]): Promise<Lineage[]> {
  const walks = requests.flatMap((request) =>
    (request.direction === 'BOTH' ? LINEAGE_DIRECTIONS : [request.direction]).map((way): Walk => ({
      request,
      way,
      seen: new Map([[refKey(request.root), null]]),
      frontier: [request.root],
      nodes: [],
      edges: [],
    })),
  );
  // The links found so far, by way and the record they were found from (shared by the walks).
  const linksOf = new Map<string, FoundLink[]>();
  const known = new Set<string>();
  for (let degree = 1; degree <= LINEAGE_MAX_DEPTH; degree++) {
    const going = walks.filter((walk) => walk.request.depth >= degree && walk.frontier.length > 0);
    if (going.length === 0) break;
    const frontier = frontierOf(going, known);
    const hasWork = Object.values(frontier.upstreamOf).some((keys) => keys.length > 0) || Object.values(frontier.downstreamOf).some((keys) => keys.length > 0);
    if (hasWork) {
      for (const link of await store.level(frontier)) {
        const id = `${link.way}|${refKey(near(link, link.way))}`;
        linksOf.set(id, [...(linksOf.get(id) ?? []), link]);
      }
    }
    for (const walk of going) {
      const next: LineageRef[] = [];
      for (const ref of walk.frontier) {
        for (const link of linksOf.get(`${walk.way}|${refKey(ref)}`) ?? []) {
          const reached = far(link, walk.way);
          if (!walk.request.readable.has(reached.type)) continue;
          walk.edges.push({ kind: link.kind, from: link.from, to: link.to, degree, direction: walk.way });
          const key = refKey(reached);
          if (walk.seen.has(key)) continue;
          const node: LineageNode = { ...reached, degree, direction: walk.way };
          walk.seen.set(key, node);
          walk.nodes.push(node);
          next.push(reached);
        }
      }
      walk.frontier = next;
    }
  }
  return requests.map((request) => {
    const own = walks.filter((walk) => walk.request === request);
    return { direction: request.direction, depth: request.depth, nodes: own.flatMap((walk) => walk.nodes), edges: own.flatMap((walk) => walk.edges) };
  });
}

const requestKey = (request: LineageRequest) => `${request.direction}|${request.depth}|${[...request.readable].sort().join(',')}|${refKey(request.root)}`;

export function createLineageService(store: LineageStore) {
  return {
    /** A request's loader: every lineage asked in one tick is traversed together, one statement per level. */
    createLoader(): DataLoader<LineageRequest, Lineage, string> {
      return new DataLoader((requests) => traverse(store, requests), { cacheKeyFn: requestKey });
    },
  };
}

export type LineageService = ReturnType<typeof createLineageService>;
