// Sorting errors that come out of a GraphQL execution into: ours (a GatewayError from a service),
// the caller's (a document or variables the schema refuses), and the unexpected (a bug: logged and
// masked); and the one shape every door that answers GraphQL sends them in (HTTP and subscriptions).
import { GraphQLError, Kind, type GraphQLFormattedError } from 'graphql';
import { GatewayError, GENERIC_FAILURE_MESSAGE } from '../errors.js';
import type { Logger } from '../logger.js';
import { noteRequestFailure } from '../request-failure.js';
import { databaseUnavailable, isDatabaseUnavailable, isUnstorableText } from '../platform/database/errors.js';

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
  if (isDatabaseUnavailable(original)) return { kind: 'gateway', error: databaseUnavailable() };
  return { kind: 'unexpected', error: original };
}

/**
 * Shapes a GraphQL error with the same classification REST uses: ours carry their contract code and
 * kind; unexpected ones are masked (reportUnexpectedError logs them).
 */
// graphql-js's refusal of a document over `maxTokens` ("Document contains more that 5000 tokens"; sic).
const TOKEN_LIMIT = /^Syntax Error: Document contains more tha[nt] \d+ tokens\./;

/** A parse error's message, with the setting named when the refusal is GRAPHQL_MAX_TOKENS's. */
export function withTokenLimitNamed(message: string): string {
  return TOKEN_LIMIT.test(message) ? `${message} The limit is GRAPHQL_MAX_TOKENS.` : message;
}

export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  if (!(error instanceof GraphQLError)) return formatted;
  if (TOKEN_LIMIT.test(formatted.message)) return { ...formatted, message: withTokenLimitNamed(formatted.message) };
  const classified = classifyGraphQLError(error);
  if (classified.kind === 'gateway') {
    const { code, kind, message } = classified.error;
    return { ...formatted, message, extensions: { code, responseCode: kind } };
  }
  if (classified.kind === 'unexpected') {
    return { ...formatted, message: GENERIC_FAILURE_MESSAGE, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  // Apollo refuses some malformed requests (a persisted query of another version) with HTTP 400 but
  // no code, which it then labels INTERNAL_SERVER_ERROR: the caller's fault, so named as such.
  if (error.originalError === undefined && formatted.extensions?.code === 'INTERNAL_SERVER_ERROR') {
    return { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_REQUEST' } };
  }
  // graphql-js refuses a request (a variable its type refuses) without a code; Apollo's HTTP door adds
  // one, the subscription doors run graphql-js themselves: named here, every door gives the same code.
  if (typeof formatted.extensions?.code !== 'string') {
    return { ...formatted, extensions: { ...formatted.extensions, code: isRefusedVariable(error) ? 'BAD_USER_INPUT' : 'BAD_REQUEST' } };
  }
  return formatted;
}

/** A variable's value its type refuses: graphql-js's error points at the variable's definition only (Apollo's BAD_USER_INPUT). */
function isRefusedVariable(error: GraphQLError): boolean {
  return error.nodes?.length === 1 && error.nodes[0]!.kind === Kind.VARIABLE_DEFINITION;
}

/** Logs what formatGraphQLError masks (an unexpected error), and a database outage as a warning. */
export function reportUnexpectedError(logger: Logger, error: GraphQLError): void {
  const classified = classifyGraphQLError(error);
  // A failure of the gateway or of a system behind it (not the caller's) goes on the request's log line.
  if (classified.kind === 'unexpected') noteRequestFailure('INTERNAL_SERVER_ERROR', classified.error);
  else if (classified.kind === 'gateway' && classified.error.httpStatus >= 500) noteRequestFailure(classified.error.code, classified.error);
  if (classified.kind === 'unexpected') logger.error({ err: classified.error }, 'unexpected error in GraphQL resolver');
  else if (classified.kind === 'gateway' && classified.error.code === 'DATABASE_UNAVAILABLE') logger.warn({ err: error.originalError ?? error }, 'database unavailable');
}
