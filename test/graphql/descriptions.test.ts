// The schema documents itself: GraphiQL's docs and code generators show a description for every
// type, field, argument, input field and enum value, and every deprecation says why.
import { describe, expect, it } from '@jest/globals';
import { isEnumType, isInputObjectType, isInterfaceType, isIntrospectionType, isObjectType, isSpecifiedScalarType, type GraphQLSchema } from 'graphql';
import { ERROR_CATALOGUE } from '../../src/errors.js';
import { buildSchema } from '../../src/graphql/schema.js';

const schema: GraphQLSchema = buildSchema('test');

/** Every schema coordinate (`Type`, `Type.field`, `Type.field(arg:)`, `Enum.VALUE`) and its description. */
function coordinates(): { coordinate: string; description: string | null | undefined; deprecationReason?: string | null }[] {
  const all: { coordinate: string; description: string | null | undefined; deprecationReason?: string | null }[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    all.push({ coordinate: type.name, description: type.description });
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        all.push({ coordinate: `${type.name}.${field.name}`, description: field.description, deprecationReason: field.deprecationReason });
        for (const arg of field.args) all.push({ coordinate: `${type.name}.${field.name}(${arg.name}:)`, description: arg.description, deprecationReason: arg.deprecationReason });
      }
    }
    if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) all.push({ coordinate: `${type.name}.${field.name}`, description: field.description, deprecationReason: field.deprecationReason });
    }
    if (isEnumType(type)) for (const value of type.getValues()) all.push({ coordinate: `${type.name}.${value.name}`, description: value.description, deprecationReason: value.deprecationReason });
  }
  return all;
}

describe('the schema’s own documentation', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    const all = coordinates();
    expect(all.length).toBeGreaterThan(900);
    expect(all.filter((entry) => !entry.description?.trim()).map((entry) => entry.coordinate)).toEqual([]);
  });

  it('gives every deprecation a reason other than the default', () => {
    const deprecated = coordinates().filter((entry) => entry.deprecationReason !== undefined && entry.deprecationReason !== null);
    expect(deprecated.filter((entry) => !entry.deprecationReason!.trim() || entry.deprecationReason === 'No longer supported').map((entry) => entry.coordinate)).toEqual([]);
  });

  it('lists every code of the error catalogue, and nothing else, in enum ErrorCode', () => {
    const errorCode = schema.getType('ErrorCode');
    expect(errorCode && isEnumType(errorCode) ? errorCode.getValues().map((value) => value.name) : []).toEqual(Object.keys(ERROR_CATALOGUE));
  });

  it('has no placeholder fields', () => {
    expect(Object.keys(schema.getMutationType()!.getFields())).not.toContain('_noop');
  });
});
