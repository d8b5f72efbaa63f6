// Domain types of data access.

/** GraphQL's ExhaustType values and what this domain calls each (resolvers, codegen and REST all read this). */
export const EXHAUST_TYPE_VALUES = { RAW: 'raw', FAILED: 'failed' } as const;
export type ExhaustType = (typeof EXHAUST_TYPE_VALUES)[keyof typeof EXHAUST_TYPE_VALUES];
