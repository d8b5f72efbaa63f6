// The older `filter` arguments of the lists, each field an equality or a set, restated as a `where`
// of the list contract, so both reach SQL the same way (and a client may give both).
import { GatewayError, type ErrorCode } from '../../errors.js';
import type { ListWhere } from './list-query.js';

/** Most values one field of an older `filter` may list (the original's status_filter_limit). */
const LEGACY_FILTER_MAX_VALUES = 10;

/** A list's `where` together with the filter of its older `filter` argument (both must match). */
export function withLegacyFilter(where: ListWhere | null | undefined, legacy: ListWhere | undefined): ListWhere | undefined {
  const parts = [legacy, where ?? undefined].filter((part): part is ListWhere => part !== undefined && Object.keys(part).length > 0);
  return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : { _and: parts };
}

/** `{ field: { eq: value } }` when `value` is given (an older filter's field), else nothing. */
export function legacyEq(field: string, value: unknown): ListWhere {
  return value === null || value === undefined ? {} : { [field]: { eq: value } };
}

/** `{ field: { in: values } }` when `values` is given, else nothing. */
export function legacyIn(field: string, values: readonly unknown[] | null | undefined): ListWhere {
  return values === null || values === undefined ? {} : { [field]: { in: values } };
}

/** Refuses, with the list's invalid-input code, an older filter's field that lists more values than such a filter takes. */
export function checkLegacyValues(code: ErrorCode, field: string, values: readonly unknown[] | null | undefined): void {
  if (values && values.length > LEGACY_FILTER_MAX_VALUES) throw new GatewayError(code, `the ${field} filter lists ${values.length} values; at most ${LEGACY_FILTER_MAX_VALUES} are allowed`);
}
