// The store types each arrival format can map to, returned with every inferred schema as the
// original returns its mapping table (a console offers these choices per property). `jsonSchema` is
// the JSON Schema type a value must have, `datasource` the column type of the analytics store.
import type { DataMappings } from './types.js';

/** A new table per call: no response shares an object a caller could change for the next one. */
export function dataMappings(): DataMappings {
  return {
    text: {
      arrival_format: ['string'],
      store_format: {
        string: { jsonSchema: 'string', datasource: 'string' },
        'date-time': { jsonSchema: 'string', datasource: 'string' },
        date: { jsonSchema: 'string', datasource: 'string' },
        boolean: { jsonSchema: 'string', datasource: 'boolean' },
        epoch: { jsonSchema: 'string', datasource: 'integer' },
        long: { jsonSchema: 'string', datasource: 'long' },
        double: { jsonSchema: 'string', datasource: 'double' },
        bigdecimal: { jsonSchema: 'string', datasource: 'double' },
        integer: { jsonSchema: 'string', datasource: 'long' },
      },
    },
    number: {
      arrival_format: ['number', 'integer'],
      store_format: {
        integer: { jsonSchema: 'integer', datasource: 'long' },
        float: { jsonSchema: 'number', datasource: 'double' },
        long: { jsonSchema: 'integer', datasource: 'long' },
        double: { jsonSchema: 'number', datasource: 'double' },
        bigdecimal: { jsonSchema: 'number', datasource: 'double' },
        epoch: { jsonSchema: 'integer', datasource: 'long' },
        number: { jsonSchema: 'number', datasource: 'double' },
      },
    },
    object: {
      arrival_format: ['object'],
      store_format: { object: { jsonSchema: 'object', datasource: 'json' } },
    },
    array: {
      arrival_format: ['array'],
      store_format: { array: { jsonSchema: 'array', datasource: 'array' } },
    },
    boolean: {
      arrival_format: ['boolean'],
      store_format: { boolean: { jsonSchema: 'boolean', datasource: 'boolean' } },
    },
  };
}
