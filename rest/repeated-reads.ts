// A kept POST read's key for a body seen before. A dashboard asks the same list again and again with
// only the envelope's `ts` and `params` (the msgid) new each time, so the route's whole check of a
// body (JSON limits, the envelope's schema, the variables and their JSON) is made once per distinct
// request, and a repeat checks only its `ts` and `params`, against the same schema and limits.
//
// Exact, not an approximation: the envelope's schema checks each member on its own (its members are
// declared, others refused), and the JSON limits each value on its own, so a body passes both when
// its `ts` and `params` pass and the rest passes; and a list's variables come from its `request`,
// never from `ts` or `params`, so the key depends only on the rest.
import { findJsonLimitViolation, type JsonLimits } from '../src/validation/json-limits.js';
import type { JsonSchema } from './validation.js';
import { compileValidator } from './validation.js';

/** Distinct requests remembered per entry: dashboards ask a handful of lists each. */
const REMEMBERED_REQUESTS = 256;

type KeyOfBody = (body: unknown) => string | undefined;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `keyOfBody`, remembered by the body's JSON without `ts` and `params`; `bodySchema` is the entry's
 * envelope schema (rest/validation.ts), whose `ts` and `params` a repeat is checked against. An entry
 * whose body is not an envelope keeps `keyOfBody` as it is.
 */
export function keyOfRepeatedBodies(keyOfBody: KeyOfBody, bodySchema: JsonSchema | undefined, jsonLimits: JsonLimits): KeyOfBody {
  const members = bodySchema?.properties as Record<string, JsonSchema> | undefined;
  if (!members?.ts || !members.params || bodySchema!.additionalProperties !== false) return keyOfBody;
  const perRequestValid = compileValidator({ type: 'object', properties: { ts: members.ts, params: members.params } });
  // Each distinct rest of a body and its key (null: the route refuses that rest, whatever its ts and params).
  const remembered = new Map<string, string | null>();
  return (body) => {
    if (!isPlainObject(body)) return keyOfBody(body);
    const { ts, params, ...rest } = body;
    const perRequest = { ts, params };
    if (findJsonLimitViolation(perRequest, jsonLimits) || perRequestValid(perRequest) !== undefined) return undefined;
    const restJson = JSON.stringify(rest);
    const known = remembered.get(restJson);
    if (known !== undefined) return known ?? undefined;
    const key = keyOfBody(body);
    remembered.set(restJson, key ?? null);
    if (remembered.size > REMEMBERED_REQUESTS) remembered.delete(remembered.keys().next().value!);
    return key;
  };
}
