// REST's results under the contract's snake_case names, projected at the edge from an operation's
// typed result: each result shape names, in the contract's order, each contract key and where its
// value is in the result: a path (dotted for a nested object), an object of the contract's own (a
// shape over the same value), or a value the contract words otherwise (labels as one object...).
// From one shape come every snake_case body, every `fields=` selection (the shape's keys) and the
// API reference's result schema (the paths' GraphQL types), as input-shape.ts does for requests.
import { GraphQLEnumType, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType, type GraphQLOutputType } from 'graphql';
import { sdlTypes } from '../src/graphql/schema.js';
import { enumSpellings, SCALAR_SCHEMAS } from './input-shape.js';
import type { JsonSchema } from './validation.js';

/** Values read as they are: a path ends at them (JSON values are `unknown`, and end there too). */
type Leaf = string | number | boolean | Date | readonly unknown[];

/** The paths of `T`'s values: a field, or a field of an object field (`sectionsAsWritten.datasetConfig`). */
export type FieldPath<T> = {
  [K in keyof T & string]: unknown extends T[K] ? K : NonNullable<T[K]> extends Leaf ? K : K | `${K}.${FieldPath<NonNullable<T[K]>>}`;
}[keyof T & string];

/**
 * Contract name → where its value is in the result, in the order the contract writes the keys. A
 * value worked out to `undefined` leaves its key out of the answer (JSON has no undefined).
 */
export type ResultShape<T> = { readonly [key: string]: FieldPath<T> | ResultShape<T> | ((value: T) => unknown) };

function valueAt(value: unknown, path: string): unknown {
  let at = value;
  for (const name of path.split('.')) at = at === null || at === undefined ? at : (at as Record<string, unknown>)[name];
  return at;
}

/** `value` under the contract's names: the shape's keys (or only `keys`, in their order). */
export function project<T>(shape: ResultShape<T>, value: T, keys: readonly string[] = Object.keys(shape)): Record<string, unknown> {
  return Object.fromEntries(
    keys.map((key) => {
      const place = shape[key]!;
      return [key, typeof place === 'string' ? valueAt(value, place) : typeof place === 'function' ? place(value) : project(place, value)];
    }),
  );
}

/** Name/value pairs (labels, annotations) as the contract answers them: one object of names to values, in the order they were written. */
export const namedValues = (pairs: readonly { name: string; value: string }[]) => Object.fromEntries(pairs.map(({ name, value }) => [name, value]));

/** An object without its null values, as the contract leaves a key out where GraphQL answers null. */
export function withoutNulls<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== null)) as Partial<T>;
}

function outputSchema(type: GraphQLOutputType): JsonSchema {
  if (type instanceof GraphQLNonNull) return outputSchema(type.ofType);
  if (type instanceof GraphQLList) return { type: 'array', items: outputSchema(type.ofType) };
  if (type instanceof GraphQLEnumType) return { type: 'string', enum: Object.values(enumSpellings(type)) };
  const scalar = SCALAR_SCHEMAS[type.name];
  if (!scalar) throw new Error(`no JSON Schema for the GraphQL type ${type.name} of a REST result`);
  return scalar;
}

/**
 * The JSON Schema of a shape's object, read from the GraphQL type its paths start at (`typeName`):
 * each key's type and description are its field's; a nullable field may be null.
 */
export function shapeSchema<T>(typeName: string, shape: ResultShape<T>, options: { keys?: readonly string[]; allRequired?: boolean } = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const keys = options.keys ?? Object.keys(shape);
  for (const key of keys) {
    const path = shape[key];
    if (typeof path !== 'string') throw new Error(`REST result key ${key}: only a path has a schema read from ${typeName}`);
    let type: GraphQLOutputType | undefined = sdlTypes().getType(typeName) as GraphQLOutputType | undefined;
    let description: string | null | undefined;
    for (const name of path.split('.')) {
      const named = type instanceof GraphQLNonNull ? type.ofType : type;
      const field = named instanceof GraphQLObjectType || named instanceof GraphQLInterfaceType ? named.getFields()[name] : undefined;
      if (!field) throw new Error(`REST result key ${key}: ${typeName} has no field at ${path}`);
      type = field.type;
      description = field.description;
    }
    const schema = type instanceof GraphQLNonNull ? outputSchema(type) : { anyOf: [outputSchema(type!), { type: 'null' }] };
    properties[key] = description ? { ...schema, description } : schema;
  }
  return { type: 'object', properties, ...(options.allRequired ? { required: [...keys] } : {}), additionalProperties: false };
}
