// A REST request is a GraphQL input under the contract's snake_case names. Each entry declares the
// input type its operation takes and how the contract names its fields (the rename map); from that
// one declaration come both the body's JSON Schema (shape and unknown keys only: every rule about a
// value is the service's, so both transports answer it with one message) and the conversion of the
// request into the operation's variables, done once here at the REST edge.
import { type GraphQLInputField, type GraphQLInputType, GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, Kind, parse, typeFromAST } from 'graphql';
import { sdlTypes } from '../src/graphql/schema.js';
import { cursorForOffset } from '../src/platform/lists/cursor.js';
import { ENUMS } from './enum-names.js';
import { envelopeSchema, type JsonSchema } from './validation.js';

/** How the contract names the fields of one GraphQL input: contract name → what it is there. */
export type Rename = Readonly<Record<string, RenameTarget>>;

type RenameTarget =
  /** The GraphQL field of that name. */
  | string
  /** A field with the contract's names of its own input's fields; `oneOrList`: a list the contract also takes as one value. */
  | { field: string; rename?: Rename; oneOrList?: true }
  /** A boolean choosing one of two values of an enum field: [when true, when false], as GraphQL names them. */
  | { field: string; flag: readonly [string, string] }
  /** An object the contract nests where GraphQL has its fields beside the input's others. */
  | { group: Rename };

export interface InputShape {
  /**
   * What the request becomes: a GraphQL input type (e.g. `CreateDatasetInput`), or, given as the
   * operation's text, the variables of a REST entry's operation (for operations taking arguments).
   */
  type: string;
  /** Contract name → GraphQL field, for each field the request may carry. */
  rename: Rename;
  /** Contract names accepted and left out of the input (parts of a whole record a client sends back that this call does not take). */
  ignored?: readonly string[];
  /**
   * Contract fields shaped otherwise than their GraphQL field (a query given as text or as an object),
   * or with no one GraphQL field (a section the entry splits in two): their schema here. A renamed one
   * is still converted by toInput; one that is not renamed the entry's `variables` converts itself.
   */
  own?: Readonly<Record<string, JsonSchema>>;
  /** Contract fields the contract requires though their GraphQL field is optional (it has a default there). */
  required?: readonly string[];
  /** Keywords added to the request's schema: conditions across fields (a sql query is text). */
  also?: JsonSchema;
  /** Spellings the contract also takes for values of a GraphQL enum, by the enum's name: spelling → GraphQL value (the original's `Retire`). */
  otherSpellings?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** A rename map for fields the contract names as GraphQL does. */
export const sameNames = (...names: string[]): Rename => Object.fromEntries(names.map((name) => [name, name]));

type EnumTable = Readonly<Record<string, Readonly<Record<string, string>>>>;

function inputObject(name: string): GraphQLInputObjectType {
  const type = sdlTypes().getType(name);
  if (!(type instanceof GraphQLInputObjectType)) throw new Error(`${name} is not a GraphQL input type`);
  return type;
}

type InputFields = Readonly<Record<string, Pick<GraphQLInputField, 'name' | 'type' | 'description' | 'defaultValue'>>>;

/** The fields of an input type, or the variables of an operation's text, each with its GraphQL type. */
const operationFields = new Map<string, InputFields>();

function fieldsOf(type: string): InputFields {
  if (!type.includes('(')) return inputObject(type).getFields();
  const known = operationFields.get(type);
  if (known) return known;
  const operation = parse(type).definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  const fields: Record<string, Pick<GraphQLInputField, 'name' | 'type' | 'description' | 'defaultValue'>> = {};
  for (const variable of operation?.variableDefinitions ?? []) {
    const variableType = typeFromAST(sdlTypes(), variable.type) as GraphQLInputType | undefined;
    if (!variableType) throw new Error(`the operation's variable $${variable.variable.name.value} has a type the schema lacks`);
    fields[variable.variable.name.value] = { name: variable.variable.name.value, type: variableType, description: undefined, defaultValue: variable.defaultValue };
  }
  operationFields.set(type, fields);
  return fields;
}

/** How one request spells values: its scalars' schemas (a URL carries text only) and the enum spellings it also takes. */
interface Spelling {
  scalars: Readonly<Record<string, JsonSchema>>;
  others: NonNullable<InputShape['otherSpellings']>;
  /** Scalars arrive as text (a URL): an Int's or a Boolean's is made the value it spells. */
  fromText?: true;
}

/** The contract's spellings of a GraphQL enum's values (its GraphQL names when the enum table has none). */
export function enumSpellings(type: GraphQLEnumType): Readonly<Record<string, string>> {
  return (ENUMS as EnumTable)[type.name] ?? Object.fromEntries(type.getValues().map((value) => [value.name, value.name]));
}

/** The GraphQL name of a spelling of `type`'s values; the schema has already refused any other. */
function enumValueName(type: GraphQLEnumType, spelling: Spelling, value: unknown): unknown {
  const other = spelling.others[type.name]?.[value as string];
  if (other !== undefined) return other;
  const spellings = enumSpellings(type);
  return Object.keys(spellings).find((name) => spellings[name] === value) ?? value;
}

export const SCALAR_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  // Free-form documents: their content is the service's to judge.
  JSON: {},
};

/** The same values written in a path or query string, where everything is text. */
const URL_SCALAR_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ...SCALAR_SCHEMAS,
  Int: { type: 'string', pattern: '^-?[0-9]+$' },
  Boolean: { type: 'string', enum: ['true', 'false'] },
};

const BODY: Spelling = { scalars: SCALAR_SCHEMAS, others: {} };
const URL_TEXT: Spelling = { scalars: URL_SCALAR_SCHEMAS, others: {}, fromText: true };

/** URL text as the scalar `type` names (the URL schema has already held it to that scalar's form). */
function scalarFromText(type: string, text: unknown): unknown {
  if (typeof text !== 'string') return text;
  if (type === 'Int') return Number(text);
  return type === 'Boolean' ? text === 'true' : text;
}
const bodySpelling = (shape: InputShape): Spelling => (shape.otherSpellings ? { scalars: SCALAR_SCHEMAS, others: shape.otherSpellings } : BODY);

function typeSchema(type: GraphQLInputType, rename: Rename | undefined, spelling: Spelling): JsonSchema {
  if (type instanceof GraphQLNonNull) return typeSchema(type.ofType, rename, spelling);
  if (type instanceof GraphQLList) return { type: 'array', items: typeSchema(type.ofType, rename, spelling) };
  if (type instanceof GraphQLEnumType) return { type: 'string', enum: [...Object.values(enumSpellings(type)), ...Object.keys(spelling.others[type.name] ?? {})] };
  if (type instanceof GraphQLInputObjectType) return objectSchema(type.getFields(), rename ?? identity(type), spelling);
  const scalar = spelling.scalars[type.name];
  if (!scalar) throw new Error(`no JSON Schema for the GraphQL scalar ${type.name}`);
  return scalar;
}

const identities = new WeakMap<GraphQLInputObjectType, Rename>();

/** An input object's own field names, where the contract spells them as GraphQL does (made once per type: requests convert through it). */
function identity(type: GraphQLInputObjectType): Rename {
  let rename = identities.get(type);
  if (!rename) identities.set(type, (rename = Object.fromEntries(Object.keys(type.getFields()).map((name) => [name, name]))));
  return rename;
}

function fieldOf(fields: InputFields, restName: string, name: string) {
  const field = fields[name];
  if (!field) throw new Error(`REST field ${restName}: the input has no field ${name}`);
  return field;
}

const isRequired = (field: InputFields[string]) => field.type instanceof GraphQLNonNull && field.defaultValue === undefined;
const described = (schema: JsonSchema, field: InputFields[string]): JsonSchema => (field.description ? { ...schema, description: field.description } : schema);

/** The schema of one contract field, and whether the contract must send it. */
function targetSchema(fields: InputFields, restName: string, target: RenameTarget, spelling: Spelling): { schema: JsonSchema; required: boolean } {
  if (typeof target !== 'string' && 'group' in target) {
    const schema = objectSchema(fields, target.group, spelling);
    return { schema, required: ((schema.required as string[] | undefined) ?? []).length > 0 };
  }
  const field = fieldOf(fields, restName, typeof target === 'string' ? target : target.field);
  if (typeof target !== 'string' && 'flag' in target) return { schema: described({ type: 'boolean' }, field), required: isRequired(field) };
  const schema = typeSchema(field.type, typeof target === 'string' ? undefined : target.rename, spelling);
  const oneOrList = typeof target !== 'string' && target.oneOrList === true;
  if (oneOrList && !schema.items) throw new Error(`REST field ${restName}: ${field.name} is not a list`);
  return { schema: described(oneOrList ? { anyOf: [schema.items as JsonSchema, schema] } : schema, field), required: isRequired(field) };
}

function objectSchema(fields: InputFields, rename: Rename, spelling: Spelling, shape: Omit<InputShape, 'type' | 'rename'> = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [restName, target] of Object.entries(rename)) {
    const field = targetSchema(fields, restName, target, spelling);
    properties[restName] = field.schema;
    if (field.required) required.push(restName);
  }
  Object.assign(properties, shape.own);
  for (const restName of shape.ignored ?? []) properties[restName] = { description: 'Accepted and not used by this call.' };
  for (const restName of shape.required ?? []) if (!required.includes(restName)) required.push(restName);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false, ...shape.also };
}

/** The JSON Schema of a request shaped as `shape` says: each field's type as its GraphQL field has it, no other keys. */
export function inputSchema(shape: InputShape): JsonSchema {
  return objectSchema(fieldsOf(shape.type), shape.rename, bodySpelling(shape), shape);
}

/** The JSON Schema of one value of a GraphQL input type, in its own field names (e.g. a list of `ItemChange`). */
export function inputTypeSchema(typeName: string): JsonSchema {
  return typeSchema(inputObject(typeName), undefined, BODY);
}

/** The JSON Schema of one field of an input type, or of one variable of an operation's text (a request that is one free-form document). */
export function fieldSchema(type: string, name: string): JsonSchema {
  const field = fieldOf(fieldsOf(type), name, name);
  return described(typeSchema(field.type, undefined, BODY), field);
}

/**
 * The path and query-string schemas of an entry whose URL names variables of its operation (`type`):
 * `path` and `query` rename them as `InputShape.rename` does, each value written as text; `ownQuery`
 * adds query parameters of REST's own. Query parameters not named are let through.
 */
export function parametersOf(type: string, names: { path?: Rename; query?: Rename; ownQuery?: Readonly<Record<string, JsonSchema>> }): { pathSchema?: JsonSchema; querySchema?: JsonSchema } {
  const fields = fieldsOf(type);
  return {
    ...(names.path ? { pathSchema: objectSchema(fields, names.path, URL_TEXT) } : {}),
    ...(names.query || names.ownQuery ? { querySchema: objectSchema(fields, names.query ?? {}, URL_TEXT, { own: names.ownQuery, also: { additionalProperties: true } }) } : {}),
  };
}

/**
 * The variables a URL gives the operation `type`, named as `parametersOf` was told (the same
 * `names`): renamed, enum spellings made GraphQL names, Int and Boolean text made their values.
 */
export function urlVariables<T>(type: string, names: { path?: Rename; query?: Rename }, url: { path: Readonly<Record<string, unknown>>; query: Readonly<Record<string, unknown>> }): T {
  const fields = fieldsOf(type);
  return toObject(fields, url.query, names.query ?? {}, URL_TEXT, toObject(fields, url.path, names.path ?? {}, URL_TEXT)) as T;
}

/**
 * The GraphQL name of one value of the enum `typeName` as the contract spells it, for a value a
 * request carries outside its input shape (a rule's condition, an order key); a spelling the table
 * does not know is given back as it is, for GraphQL to refuse with the message a GraphQL client gets.
 */
export function enumValueOf<N extends keyof typeof ENUMS>(typeName: N, spelling: string): keyof (typeof ENUMS)[N] & string {
  const type = sdlTypes().getType(typeName);
  if (!(type instanceof GraphQLEnumType)) throw new Error(`${typeName} is not a GraphQL enum type`);
  return enumValueName(type, BODY, spelling) as keyof (typeof ENUMS)[N] & string;
}

function toValue(type: GraphQLInputType, value: unknown, rename: Rename | undefined, spelling: Spelling): unknown {
  if (value === null || value === undefined) return value;
  if (type instanceof GraphQLNonNull) return toValue(type.ofType, value, rename, spelling);
  if (type instanceof GraphQLList) return Array.isArray(value) ? value.map((item) => toValue(type.ofType, item, rename, spelling)) : value;
  if (type instanceof GraphQLEnumType) return enumValueName(type, spelling, value);
  if (type instanceof GraphQLInputObjectType) return toObject(type.getFields(), value as Record<string, unknown>, rename ?? identity(type), spelling);
  return spelling.fromText ? scalarFromText(type.name, value) : value;
}

function toObject(fields: InputFields, request: Readonly<Record<string, unknown>>, rename: Rename, spelling: Spelling, input: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [restName, target] of Object.entries(rename)) {
    const value = request[restName];
    if (value === undefined) continue;
    if (typeof target !== 'string' && 'group' in target) {
      toObject(fields, value as Record<string, unknown>, target.group, spelling, input);
      continue;
    }
    const field = fieldOf(fields, restName, typeof target === 'string' ? target : target.field);
    if (typeof target === 'string') input[field.name] = toValue(field.type, value, undefined, spelling);
    else if ('flag' in target) input[field.name] = value ? target.flag[0] : target.flag[1];
    else input[field.name] = toValue(field.type, target.oneOrList && !Array.isArray(value) ? [value] : value, target.rename, spelling);
  }
  return input;
}

/**
 * The GraphQL input of a request the schema above has passed: fields renamed, enum spellings made
 * GraphQL names, ignored and own fields left out (the entry adds its own fields itself). `T` is
 * the operation's generated input type, which the derived schema has already held the request to.
 */
export function toInput<T>(shape: InputShape, request: unknown): T {
  return toObject(fieldsOf(shape.type), (request ?? {}) as Record<string, unknown>, shape.rename, bodySpelling(shape)) as T;
}

/** A list of values of a GraphQL input type spelled with its own field names (a change list), enum spellings made GraphQL names. */
export function toInputList<T>(typeName: string, items: unknown): T[] | null {
  const type = inputObject(typeName);
  return Array.isArray(items) ? items.map((item) => toValue(type, item, undefined, BODY) as T) : null;
}

/**
 * The body schema and operation of an entry whose envelope's `request` is its operation's variables
 * as `shape` declares them (`shape.type` is the operation's text).
 */
export function requestOfOperation(apiId: string, shape: InputShape, options: { requestRequired: boolean }): { bodySchema: JsonSchema; operation: string } {
  return { bodySchema: envelopeSchema(apiId, inputSchema(shape), options), operation: shape.type };
}

/** A list's offset: REST's own (GraphQL pages by cursor), made the cursor of the row before. */
export const offset: JsonSchema = { type: 'integer', minimum: 0 };

/** The cursor after the first `skipped` matches; null from the start. */
export function afterOffset(skipped: number | undefined): string | null {
  return skipped ? cursorForOffset(skipped - 1) : null;
}

/** A list's page as its operation's variables: the filter and page size given (null: none), and the cursor after REST's offset. */
export function pageVariables<F>(given: { filter?: F | null; first?: number | null }, skipped: number | undefined): { filter: F | null; first: number | null; after: string | null } {
  return { filter: given.filter ?? null, first: given.first ?? null, after: afterOffset(skipped) };
}
