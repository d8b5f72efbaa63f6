// Domain types of schema inference (contract 2.2, 4.1 `POST /v2/datasets/dataschema`), shared by
// the algorithm, the service and the GraphQL resolvers. Field names inside the schema document
// (`arrival_format`, `data_type`, `resolutionType`) are the contract's, since the document is
// handed to clients as it is.

/** JSON Schema types a property can have (never "null": nulls do not decide a type). */
export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

/** How a value arrives in an event (contract 2.2). */
export type ArrivalFormat = 'text' | 'number' | 'boolean' | 'object' | 'array';

/** How a value is meant to be stored (contract 2.2); a subset of the store types in `dataMappings`. */
export type DataType = 'string' | 'integer' | 'number' | 'epoch' | 'date-time' | 'date' | 'boolean' | 'object' | 'array';

/** The original's severities: MUST-FIX, MEDIUM, LOW, and "" for notes that need no action. */
export type SuggestionSeverity = 'MUST-FIX' | 'MEDIUM' | 'LOW' | '';

/** What kind of decision a suggestion asks for. INDEX, DEDUP, DATA_TYPE, OPTIONAL and TRANSFORMATION are the original's. */
export type ResolutionType = 'DATA_TYPE' | 'OPTIONAL' | 'INDEX' | 'DEDUP' | 'ROLLUP' | 'TRANSFORMATION' | 'NAMING';

/** A suggestion as it sits on a property of the schema document (contract 2.2). */
export interface PropertySuggestion {
  message: string;
  severity: SuggestionSeverity;
  /** Where the property sits in the schema document, e.g. `properties.user.properties.id`. */
  path: string;
  advice?: string;
  resolutionType?: ResolutionType;
}

/** The same suggestion in the flat list, with the property named as a field path. */
export interface SchemaSuggestion extends PropertySuggestion {
  /** The property as a field path, e.g. `user.id` or `items[*].sku`. */
  field: string;
}

export interface PropertySchema {
  type: JsonType;
  arrival_format: ArrivalFormat;
  data_type: DataType;
  properties?: Record<string, PropertySchema>;
  additionalProperties?: boolean;
  required?: string[];
  items?: PropertySchema;
  suggestions?: PropertySuggestion[];
}

export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

export interface DataSchema {
  $schema: typeof JSON_SCHEMA_2020_12;
  type: 'object';
  /** Built without a prototype, so keys such as `__proto__` stay ordinary keys. */
  properties: Record<string, PropertySchema>;
  additionalProperties: true;
  required: string[];
}

/** One choice of timestamp (index) key: a label for people and the field path. */
export interface IndexOption {
  label: string;
  path: string;
}

/** How varied a text field is, as the original reports it for rollup decisions. */
export interface RollupSuggestion {
  field: string;
  /** Where the property sits in the schema document. */
  path: string;
  /** 100 minus the share (in %) of the most frequent value: 0 for a constant, near 100 for an identifier. */
  cardinality: number;
  /** True when one value covers at least 80% of the samples, so the field rolls up well. */
  index: boolean;
}

export interface SchemaConfigurations {
  indexConfiguration: {
    /** Arrival time first, then the timestamp candidates. */
    index: IndexOption[];
    rollupSuggestions: RollupSuggestion[];
  };
  processing: {
    /** Field paths that identify an event, best first. */
    dedupKeys: string[];
    /** The choices a console offers for dropping duplicates, as the original sends them. */
    dropDuplicates: string[];
  };
}

/** A key left out of the schema because no sample gave it a type (only nulls, empty objects or empty arrays). */
export interface RemovedKey {
  key: string;
  value: null | Record<string, never> | never[];
}

/** One store type an arrival format can map to. */
export interface StoreFormat {
  jsonSchema: JsonType;
  datasource: string;
}

export type DataMappings = Record<ArrivalFormat, { arrival_format: string[]; store_format: Record<string, StoreFormat> }>;

export interface InferredSchema {
  schema: DataSchema;
  /** Every suggestion of the document, in document order. */
  suggestions: SchemaSuggestion[];
  configurations: SchemaConfigurations;
  dataMappings: DataMappings;
  removedKeys: RemovedKey[];
}

export interface InferSchemaInput {
  samples: readonly unknown[];
  dataset: string;
}

/** Bounds on one inference; the service holds the defaults. */
export interface InferenceLimits {
  /** Most samples one call takes. */
  maxSamples: number;
  /** Deepest nesting of objects and arrays inside a sample (a sample's own fields are level 1). */
  maxDepth: number;
  /** Most distinct fields (schema positions) over all samples. */
  maxFields: number;
}

/** GraphQL's SchemaSuggestionSeverity values and what this domain calls each (resolvers, codegen and REST all read this). */
export const SCHEMA_SUGGESTION_SEVERITY_VALUES = { MUST_FIX: 'MUST-FIX', MEDIUM: 'MEDIUM', LOW: 'LOW', INFO: '' } as const;
