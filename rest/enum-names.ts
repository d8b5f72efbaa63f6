// REST speaks the domain's spellings (Draft, ReadyToPublish), GraphQL its enum names (DRAFT,
// READY_TO_PUBLISH). Both directions are read from the one enum table (src/graphql/enum-values.ts),
// the one the schema's enum resolvers and the generated types use, so they cannot drift: requests in
// input-shape.ts (values outside a request's shape too: enumValueOf), results in result-spelling.ts.
import { GRAPHQL_ENUM_VALUES } from '../src/graphql/enum-values.js';

/** Each GraphQL enum's names and the domain's spelling of each, by the enum's GraphQL name. */
export const ENUMS = GRAPHQL_ENUM_VALUES;

/** The domain values of a map, for a REST schema's `enum`. */
export function domainValues(map: Readonly<Record<string, string>>): string[] {
  return Object.values(map);
}
