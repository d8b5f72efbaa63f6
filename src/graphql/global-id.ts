// Global ids of the graph's records: base64url of `<Type>:<key>[:<key>...]`, each key part
// URI-encoded so a key holding `:` stays one part. Opaque to clients; the type inside lets `node`
// find the record and refuses an id of another type where one type is expected.
import { GatewayError } from '../errors.js';

/** Every type that implements Node, with the number of key parts its id holds. */
export const NODE_TYPES = {
  Dataset: 2, // dataset id, stage (live or draft): the two versions are two nodes
  Datasource: 1,
  QueryTemplate: 1,
  Connector: 1,
  Silence: 1,
  MetricAlias: 1,
  NotificationChannel: 1,
  AlertRule: 1,
  AlertNotification: 1,
  AuditRecord: 1,
} as const;

export type NodeType = keyof typeof NODE_TYPES;

export interface DecodedId {
  type: NodeType;
  key: string[];
}

/** Longest global id accepted; real ones stay far below (keys are bounded by their columns). */
const GLOBAL_ID_MAX_LENGTH = 1024;

export function globalId(type: NodeType, ...key: string[]): string {
  return Buffer.from([type, ...key.map(encodeURIComponent)].join(':'), 'utf8').toString('base64url');
}

function invalid(id: string, why: string): GatewayError {
  return new GatewayError('NODE_ID_INVALID', `${JSON.stringify(id.slice(0, 60))} is not a global id of this gateway: ${why}`);
}

/** The type and key a global id names; NODE_ID_INVALID when this gateway did not make it. */
export function decodeGlobalId(id: string): DecodedId {
  if (id.length === 0 || id.length > GLOBAL_ID_MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(id)) throw invalid(id, 'ids are base64url text, as a Node.id field gives them');
  const parts = Buffer.from(id, 'base64url').toString('utf8').split(':');
  const type = parts[0] ?? '';
  if (!Object.hasOwn(NODE_TYPES, type)) throw invalid(id, 'it names no type of the graph');
  const key = parts.slice(1);
  if (key.length !== NODE_TYPES[type as NodeType] || key.some((part) => part === '')) throw invalid(id, `it does not hold a ${type} key`);
  try {
    return { type: type as NodeType, key: key.map(decodeURIComponent) };
  } catch {
    throw invalid(id, `it does not hold a ${type} key`);
  }
}
