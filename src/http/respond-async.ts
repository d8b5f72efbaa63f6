// `Prefer: respond-async` (RFC 7240): the caller asks for long work to run as a job, answered 202 with
// its status link, rather than waited for. Read by the REST router (which entries then start a job)
// and by the fast path (which never answers such a request from a kept read).
import type { IncomingHttpHeaders } from 'node:http';

export function asksToRespondAsync(headers: IncomingHttpHeaders): boolean {
  const prefer = headers.prefer;
  if (prefer === undefined) return false;
  return (Array.isArray(prefer) ? prefer.join(',') : prefer).split(',').some((preference) => preference.split(';')[0]!.trim().toLowerCase() === 'respond-async');
}
