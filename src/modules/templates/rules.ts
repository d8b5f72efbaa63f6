// The rules a template must keep (contract 2.3, 4.3, 8), as plain functions returning the reason a
// value is refused, or undefined when it is fine. The service turns reasons into errors.
import { QUERY_TYPES, type QueryType } from './types.js';

export const TEMPLATE_NAME_MAX_LENGTH = 100;
/** Longer than any name (at most 100 characters) makes an id, with room for the original's older ids. */
export const TEMPLATE_ID_MAX_LENGTH = 120;
export const TEMPLATE_QUERY_MAX_LENGTH = 100_000;
export const REQUIRED_PLACEHOLDERS = ['DATASET', 'STARTDATE', 'ENDDATE'] as const;

export const TEMPLATE_NAME_RULE = 'Template name should contain alphanumeric characters and single space between characters';
const NAME_PATTERN = /^[A-Za-z0-9]+( [A-Za-z0-9]+)*$/;
// `{{ name }}`, any case: the original matches placeholders case-insensitively.
const PLACEHOLDER_PATTERN = /\{\{\s*([A-Za-z_]+)\s*\}\}/g;

export function checkTemplateName(name: string): string | undefined {
  if (name.length > TEMPLATE_NAME_MAX_LENGTH) return `${TEMPLATE_NAME_RULE} (at most ${TEMPLATE_NAME_MAX_LENGTH} characters)`;
  return NAME_PATTERN.test(name) ? undefined : TEMPLATE_NAME_RULE;
}

/** Why no template can have `id` (it is longer than any template's), or undefined. */
export function checkTemplateId(id: string): string | undefined {
  return id.length > TEMPLATE_ID_MAX_LENGTH ? `template_id is ${id.length} characters long; at most ${TEMPLATE_ID_MAX_LENGTH} are allowed` : undefined;
}

/** The id the original derives from a name: lower case, words joined by underscores. */
export function templateIdFromName(name: string): string {
  return name.toLowerCase().replaceAll(' ', '_');
}

export function isQueryType(value: string): value is QueryType {
  return (QUERY_TYPES as readonly string[]).includes(value);
}

export function placeholdersIn(query: string): Set<string> {
  return new Set([...query.matchAll(PLACEHOLDER_PATTERN)].map((match) => match[1]!.toUpperCase()));
}

export interface QueryCheck {
  /** The query as it will be stored. */
  text?: string;
  problem?: string;
}

/** Checks a query against its type and returns the text to store. Both transports give it as text
 * (the REST layer turns a json query given as an object into JSON text). */
export function checkTemplateQuery(queryType: QueryType, text: string): QueryCheck {
  if (text.trim() === '') return { problem: 'the query is empty' };
  // PostgreSQL text cannot hold NUL; refused here with the template's own code, not at the store.
  if (text.includes('\u0000')) return { problem: 'the query contains a NUL character (\\u0000), which a query cannot hold' };
  if (text.length > TEMPLATE_QUERY_MAX_LENGTH) return { problem: `the query is longer than ${TEMPLATE_QUERY_MAX_LENGTH} characters` };

  const found = placeholdersIn(text);
  const missing = REQUIRED_PLACEHOLDERS.filter((name) => !found.has(name));
  if (missing.length > 0) {
    return {
      problem:
        `Invalid template provided, A template should consist of variables ${REQUIRED_PLACEHOLDERS.join(',')} and type of json,sql ` + `(missing: ${missing.map((name) => `{{${name}}}`).join(', ')})`,
    };
  }
  if (queryType === 'json') {
    // Placeholders may stand where a number goes (`"limit": {{LIMIT}}`), so check the JSON with
    // each replaced by a neutral value, as it will be once filled in.
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(PLACEHOLDER_PATTERN, '0'));
    } catch (error) {
      return { problem: `a json query must be valid JSON: ${(error as Error).message}` };
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return { problem: 'a json query must be a JSON object (a Druid native query)' };
    }
  }
  return { text };
}
