// Sorting errors that come out of a GraphQL execution into: ours (a GatewayError from a service),
// the caller's (a document or variables the schema refuses), and the unexpected (a bug: logged and masked).
import type { GraphQLError } from 'graphql';
import { GatewayError } from '../errors.js';
import { isDatabaseUnavailable, isUnstorableText } from '../platform/database/errors.js';

export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is unavailable at the moment; try again shortly.';

export type ClassifiedError = { kind: 'gateway'; error: GatewayError } | { kind: 'input'; message: string } | { kind: 'unexpected'; error: Error };

export function classifyGraphQLError(error: GraphQLError): ClassifiedError {
  const original = error.originalError;
  if (original instanceof GatewayError) return { kind: 'gateway', error: original };
  // Errors from outside any field (document validation, variable coercion, a scalar refusing a
  // value) carry no path: the request itself is at fault.
  if (!original || error.path === undefined) return { kind: 'input', message: error.message };
  if (isUnstorableText(original)) {
    return { kind: 'gateway', error: new GatewayError('INVALID_INPUT', 'A text value contains a character that cannot be stored or matched (such as NUL, \\u0000).') };
  }
  if (isDatabaseUnavailable(original)) return { kind: 'gateway', error: new GatewayError('DATABASE_UNAVAILABLE', DATABASE_UNAVAILABLE_MESSAGE) };
  return { kind: 'unexpected', error: original };
}
