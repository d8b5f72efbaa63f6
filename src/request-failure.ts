// What a failed request's log line says beyond its status: the error code answered, the system
// outside the gateway it failed on (when one did), and the cause, as a chain of messages. The REST
// envelope and the GraphQL error reporter note the failure in the request scope; the request log
// (src/http/use-observability.ts) reads it when the request ends.
import { GatewayError } from './errors.js';
import { ObjectStoreFailure } from './platform/object-store/object-store.js';
import { currentRequestScope } from './request-scope.js';

const CAUSE_DEPTH = 4;

/** "Name: message" of the error and each cause under it, outermost first. */
function causeChain(error: unknown): string | undefined {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < CAUSE_DEPTH && current !== undefined && current !== null; depth += 1) {
    if (current instanceof Error) {
      parts.push(current.message ? `${current.name}: ${current.message}` : current.name);
      current = current.cause;
    } else {
      parts.push(typeof current === 'string' ? current : JSON.stringify(current));
      break;
    }
  }
  return parts.length > 0 ? parts.join(' <- ') : undefined;
}

/** The downstream a GatewayError names, else one found in its causes. */
function downstreamOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < CAUSE_DEPTH && current instanceof Error; depth += 1) {
    if (current instanceof GatewayError && current.downstream) return current.downstream;
    if (current instanceof ObjectStoreFailure) return `object store: ${current.store}`;
    if (current instanceof GatewayError && current.code === 'DATABASE_UNAVAILABLE') return 'database';
    current = current.cause;
  }
  return undefined;
}

/**
 * Notes the request's failure: `code` answered, `error` what was thrown (a GatewayError whose cause
 * is the underlying error, or the unexpected error itself). The first failure noted is kept.
 */
export function noteRequestFailure(code: string, error: unknown): void {
  const scope = currentRequestScope();
  if (!scope || scope.failure) return;
  // A GatewayError's own message is what the caller read; its cause is what the operator needs.
  const underneath = error instanceof GatewayError ? error.cause : error;
  const downstream = downstreamOf(error);
  const cause = causeChain(underneath);
  scope.failure = { code, ...(downstream ? { downstream } : {}), ...(cause ? { cause } : {}) };
}
