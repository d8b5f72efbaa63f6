// The request a piece of code runs for, carried through every await by AsyncLocalStorage: log lines
// written with any logger (the root one included) get the request id, and the GraphQL plugin can
// name the operation for the request log and the metrics without reaching for the HTTP response.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestScope {
  requestId: string;
  /** The GraphQL operation's name (bounded: see use-observability.ts), once Apollo has resolved it. */
  graphqlOperation?: string;
  /** Its kept GraphQL answer was looked up before Apollo and not served: Apollo executes it without looking again. */
  keptAnswerLookedUp?: boolean;
  /** Why it failed, for its log line (src/request-failure.ts). */
  failure?: { code: string; downstream?: string; cause?: string };
}

const storage = new AsyncLocalStorage<RequestScope>();

/**
 * Makes `scope` current for the rest of this request. `enterWith` rather than `run`: express calls
 * the next middleware from callbacks of the request's own async resource (body parsing reads the
 * socket), and `enterWith` attaches the scope to that resource, so it survives body parsing.
 */
export function enterRequestScope(scope: RequestScope): void {
  storage.enterWith(scope);
}

export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}
