// A REST request is a GraphQL input under the contract's snake_case names. Each entry declares the
// input type its operation takes and how the contract names its fields (the rename map); from that
// one declaration come both the body's JSON Schema (shape and unknown keys only: every rule about a
// value is the service's, so both transports answer it with one message) and the conversion of the
// request into the operation's variables, done once here at the REST edge.
import { buildASTSchema, concatAST, type GraphQLInputField, type GraphQLInputType, GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, Kind, parse, typeFromAST } from 'graphql';
import { readTypeDefs } from '../src/graphql/schema.js';
import { ENUMS } from './enum-names.js';
import { envelopeSchema, type JsonSchema } from './validation.js';

/** How the contract names the fields of one GraphQL input: contract name → field, or field plus the names of its own input's fields. */
export type Rename = Readonly<Record<string, string | { field: string; rename: Rename }>>;

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
}

/** A rename map for fields the contract names as GraphQL does. */
export const sameNames = (...names: string[]): Rename => Object.fromEntries(names.map((name) => [name, name]));

type EnumTable = Readonly<Record<string, Readonly<Record<string, string>>>>;

let sdlSchema: ReturnType<typeof buildASTSchema> | undefined;

/** The SDL's types (no resolvers: only the input types are read), built once. */
function graphqlSchema() {
  sdlSchema ??= buildASTSchema(concatAST(readTypeDefs().map((source) => parse(source))), { assumeValidSDL: true });
  return sdlSchema;
}

function inputObject(name: string): GraphQLInputObjectType {
  const type = graphqlSchema().getType(name);
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
    const variableType = typeFromAST(graphqlSchema(), variable.type) as GraphQLInputType | undefined;
    if (!variableType) throw new Error(`the operation's variable $${variable.variable.name.value} has a type the schema lacks`);
    fields[variable.variable.name.value] = { name: variable.variable.name.value, type: variableType, description: undefined, defaultValue: variable.defaultValue };
  }
  operationFields.set(type, fields);
  return fields;
}

/** The contract's spellings of a GraphQL enum's values (its GraphQL names when the enum table has none). */
function enumSpellings(type: GraphQLEnumType): Readonly<Record<string, string>> {
  return (ENUMS as EnumTable)[type.name] ?? Object.fromEntries(type.getValues().map((value) => [value.name, value.name]));
}

const SCALAR_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  // Free-form documents: their content is the service's to judge.
  JSON: {},
};

function typeSchema(type: GraphQLInputType, rename: Rename | undefined): JsonSchema {
  if (type instanceof GraphQLNonNull) return typeSchema(type.ofType, rename);
  if (type instanceof GraphQLList) return { type: 'array', items: typeSchema(type.ofType, rename) };
  if (type instanceof GraphQLEnumType) return { type: 'string', enum: Object.values(enumSpellings(type)) };
  if (type instanceof GraphQLInputObjectType) return objectSchema(type.getFields(), rename ?? identity(type));
  const scalar = SCALAR_SCHEMAS[type.name];
  if (!scalar) throw new Error(`no JSON Schema for the GraphQL scalar ${type.name}`);
  return scalar;
}

/** An input object's own field names, where the contract spells them as GraphQL does. */
function identity(type: GraphQLInputObjectType): Rename {
  return Object.fromEntries(Object.keys(type.getFields()).map((name) => [name, name]));
}

function fieldOf(fields: InputFields, restName: string, target: Rename[string]) {
  const name = typeof target === 'string' ? target : target.field;
  const field = fields[name];
  if (!field) throw new Error(`REST field ${restName}: the input has no field ${name}`);
  return { field, rename: typeof target === 'string' ? undefined : target.rename };
}

function objectSchema(fields: InputFields, rename: Rename, shape: Omit<InputShape, 'type' | 'rename'> = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [restName, target] of Object.entries(rename)) {
    const { field, rename: nested } = fieldOf(fields, restName, target);
    properties[restName] = { ...typeSchema(field.type, nested), ...(field.description ? { description: field.description } : {}) };
    if (field.type instanceof GraphQLNonNull && field.defaultValue === undefined) required.push(restName);
  }
  Object.assign(properties, shape.own);
  for (const restName of shape.ignored ?? []) properties[restName] = { description: 'Accepted and not used by this call.' };
  for (const restName of shape.required ?? []) if (!required.includes(restName)) required.push(restName);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false, ...shape.also };
}

/** The JSON Schema of a request shaped as `shape` says: each field's type as its GraphQL field has it, no other keys. */
export function inputSchema(shape: InputShape): JsonSchema {
  return objectSchema(fieldsOf(shape.type), shape.rename, shape);
}

/** The JSON Schema of one value of a GraphQL input type, in its own field names (e.g. a list of `ItemChange`). */
export function inputTypeSchema(typeName: string): JsonSchema {
  return typeSchema(inputObject(typeName), undefined);
}

function toValue(type: GraphQLInputType, value: unknown, rename: Rename | undefined): unknown {
  if (value === null || value === undefined) return value;
  if (type instanceof GraphQLNonNull) return toValue(type.ofType, value, rename);
  if (type instanceof GraphQLList) return Array.isArray(value) ? value.map((item) => toValue(type.ofType, item, rename)) : value;
  if (type instanceof GraphQLEnumType) {
    const spellings = enumSpellings(type);
    return Object.keys(spellings).find((name) => spellings[name] === value) ?? value;
  }
  if (type instanceof GraphQLInputObjectType) return toObject(type.getFields(), value as Record<string, unknown>, rename ?? identity(type));
  return value;
}

function toObject(fields: InputFields, request: Record<string, unknown>, rename: Rename): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [restName, target] of Object.entries(rename)) {
    if (request[restName] === undefined) continue;
    const { field, rename: nested } = fieldOf(fields, restName, target);
    input[field.name] = toValue(field.type, request[restName], nested);
  }
  return input;
}

/**
 * The GraphQL input of a request the schema above has passed: fields renamed, enum spellings made
 * GraphQL names, ignored and own fields left out (the entry adds its own fields itself). `T` is
 * the operation's generated input type, which the derived schema has already held the request to.
 */
export function toInput<T>(shape: InputShape, request: unknown): T {
  return toObject(fieldsOf(shape.type), (request ?? {}) as Record<string, unknown>, shape.rename) as T;
}

/** A list of values of a GraphQL input type spelled with its own field names (a change list), enum spellings made GraphQL names. */
export function toInputList<T>(typeName: string, items: unknown): T[] | null {
  const type = inputObject(typeName);
  return Array.isArray(items) ? items.map((item) => toValue(type, item, undefined) as T) : null;
}

/**
 * The body schema and operation of an entry whose envelope's `request` is its operation's variables
 * as `shape` declares them (`shape.type` is the operation's text).
 */
export function requestOfOperation(apiId: string, shape: InputShape, options: { requestRequired: boolean }): { bodySchema: JsonSchema; operation: string } {
  return { bodySchema: envelopeSchema(apiId, inputSchema(shape), options), operation: shape.type };
}
