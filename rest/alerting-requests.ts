// What the /alerts/v1 entries' requests share, in shape only: every rule about a value is the
// service's or GraphQL's, one message on both transports. A record's id in the path, a search's
// offset and its `options.order` as `[field, direction]` pairs, a status given alone or as a list,
// a search body wrapped in `request` or bare, and query strings read as the operation's variables.
import { ENUMS } from './enum-names.js';
import { enumValueOf, inputSchema, toInput, type InputShape } from './input-shape.js';
import { pathParam, type RestInput } from './table.js';
import type { JsonSchema } from './validation.js';

type Properties = Record<string, JsonSchema>;
type Row = Record<string, unknown>;

/** The body, in the shape the entry's schema has already checked. */
export function body<T>(input: RestInput): T {
  return input.body as T;
}

/** `{id}` of the record a mutation payload carries, e.g. data.createSilence.silence.id. */
export const idResult = (field: string, record: string) => (data: Row) => ({ id: ((data[field] as Row)[record] as Row).id });

/** A record's id in the path; its form and length are the service's rules. */
export const idPath: JsonSchema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

/** An entry whose operation asks for the record the path names, by its id alone. */
export const byId = { pathSchema: idPath, variables: (input: RestInput) => ({ id: pathParam(input, 'id') }) };

/** `options.order`: `[field, direction]` pairs, the direction optional (ascending). */
export const orderOptions: JsonSchema = {
  type: 'object',
  properties: { order: { type: 'array', items: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } } } },
  additionalProperties: false,
};

/**
 * `[["createdAt", "DESC"]]` as GraphQL's order keys; null when no order is given. GraphQL's enums
 * judge field and direction (a field REST does not spell is sent as given, the direction in
 * capitals), and the list how many keys an order may have: the messages a GraphQL client gets.
 */
export function orderKeys<N extends keyof typeof ENUMS>(fieldEnum: N, order: readonly (readonly string[])[] | undefined): { field: keyof (typeof ENUMS)[N] & string; order: 'ASC' | 'DESC' }[] | null {
  if (!order) return null;
  return order.map(([field = '', direction = 'ASC']) => ({ field: enumValueOf(fieldEnum, field), order: direction.toUpperCase() as 'ASC' | 'DESC' }));
}

/** `schema` with the list field at `path` also taking one value alone (the console's `status: "live"`). */
export function oneOrList(schema: JsonSchema, ...path: string[]): JsonSchema {
  const [name, ...rest] = path as [string, ...string[]];
  const properties = schema.properties as Properties;
  const field = properties[name]!;
  const { description, ...list } = field as JsonSchema & { items: JsonSchema };
  const changed = rest.length > 0 ? oneOrList(field, ...rest) : { ...(description ? { description } : {}), anyOf: [list.items, list] };
  return { ...schema, properties: { ...properties, [name]: changed } };
}

/** Criteria whose `filters.status` was given alone, with it made the list GraphQL takes. */
export function statusAsList<T>(criteria: T): T {
  const filters = (criteria as { filters?: { status?: unknown } }).filters;
  if (filters?.status === undefined || Array.isArray(filters.status)) return criteria;
  return { ...criteria, filters: { ...filters, status: [filters.status] } };
}

/** A search body: the original wraps its criteria in `request`; the bare form is accepted too. */
export function searchBody(criteria: JsonSchema): JsonSchema {
  return { type: 'object', properties: { request: criteria, ...(criteria.properties as Properties) }, additionalProperties: false };
}

/** The criteria of a search body, wrapped in `request` or not. */
export function criteriaOf<T>(body: Record<string, unknown>): T {
  return (body.request ?? body) as T;
}

/** Query-string text as the scalar a JSON Schema type names: `10` an integer, `true` a boolean; other text as it is. */
function scalarOf(type: unknown, text: unknown): unknown {
  if (typeof text !== 'string') return text;
  if (type === 'integer' && /^-?[0-9]{1,15}$/.test(text)) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/**
 * A query string read as `shape`'s input: its schema is the derived one with every Int and Boolean
 * taken as text, and the input has text that spells one made it. Other text goes to GraphQL as it
 * is, for its Int or Boolean to refuse with the message a GraphQL client gets.
 */
export function queryString<T>(shape: InputShape): { shape: InputShape; schema: JsonSchema; input: (query: Record<string, unknown>) => T } {
  const derived = inputSchema(shape);
  const typed = derived.properties as Properties;
  const spelled: Readonly<Record<string, string>> = { integer: 'A whole number.', boolean: '`true` or `false`.' };
  const asText = (property: JsonSchema): JsonSchema =>
    typeof property.type === 'string' && spelled[property.type] ? { type: 'string', description: [property.description, spelled[property.type]].filter(Boolean).join(' ') } : property;
  return {
    shape,
    schema: { ...derived, properties: Object.fromEntries(Object.entries(typed).map(([name, property]) => [name, asText(property)])) },
    input: (query) => toInput<T>(shape, Object.fromEntries(Object.entries(query).map(([name, text]) => [name, scalarOf(typed[name]?.type, text)]))),
  };
}
