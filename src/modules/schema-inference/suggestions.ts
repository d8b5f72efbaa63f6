// The wording of every suggestion schema inference makes, and the name heuristics behind some of
// them. The algorithm (infer-schema.ts) decides when a suggestion applies; this file says it.
// Sample numbers in messages count from 1 (#1 is the first sample), for people reading them.
import type { JsonType, SchemaSuggestion, SuggestionSeverity, ResolutionType } from './types.js';

/** Where a suggestion goes: the field path people read and the property's place in the document. */
export interface SuggestionTarget {
  field: string;
  path: string;
}

/** How many values and which samples had a given trait (only the first few samples are kept). */
export interface SampleTally {
  count: number;
  /** Distinct samples with the trait. */
  sampleCount: number;
  /** The first few of those samples (0-based), in sample order. */
  samples: number[];
}

export const ARRIVAL_TIME_INDEX = { label: 'Event Arrival Time', path: 'obsrv_meta.syncts' } as const;

function suggestion(target: SuggestionTarget, severity: SuggestionSeverity, message: string, advice?: string, resolutionType?: ResolutionType): SchemaSuggestion {
  return {
    field: target.field,
    message,
    severity,
    path: target.path,
    ...(advice === undefined ? {} : { advice }),
    ...(resolutionType === undefined ? {} : { resolutionType }),
  };
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "#3, #8 and 4 more" */
export function listSamples(tally: SampleTally): string {
  const listed = tally.samples.map((index) => `#${index + 1}`);
  const rest = tally.sampleCount - listed.length;
  if (rest > 0) return `${listed.join(', ')} and ${rest} more`;
  if (listed.length <= 1) return listed.join('');
  return `${listed.slice(0, -1).join(', ')} and ${listed.at(-1)}`;
}

function samplesPhrase(tally: SampleTally): string {
  return `${tally.sampleCount === 1 ? 'sample' : 'samples'} ${listSamples(tally)}`;
}

// ---------------------------------------------------------------------------------------------
// Names

function nameTokens(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((token) => token !== '');
}

const TEMPORAL_TOKENS = new Set(['time', 'timestamp', 'ts', 'syncts', 'date', 'datetime', 'dt', 'at', 'on', 'epoch', 'created', 'updated', 'modified']);
const IDENTIFIER_TOKENS = new Set(['id', 'uuid', 'guid', 'uid', 'key', 'mid', 'msgid']);

/** True for names such as `ets`, `created_at`, `eventTime`, `syncts`: a time is what they promise. */
export function isTemporalName(key: string): boolean {
  const tokens = nameTokens(key);
  return tokens.some((token) => TEMPORAL_TOKENS.has(token)) || /(?:^|[^a-z])e?ts$/i.test(key);
}

/** True for names such as `id`, `event_id`, `orderUUID`, `mid`: an identifier is what they promise. */
export function isIdentifierName(key: string): boolean {
  const last = nameTokens(key).at(-1);
  return last !== undefined && IDENTIFIER_TOKENS.has(last);
}

export type KeyProblem = 'dot' | 'space' | 'empty' | 'reserved';

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function keyProblem(key: string): KeyProblem | undefined {
  if (key === '') return 'empty';
  if (key.includes('.')) return 'dot';
  if (/\s/.test(key)) return 'space';
  if (RESERVED_KEYS.has(key)) return 'reserved';
  return undefined;
}

/** Keys that a dotted path (as the dataset configuration writes one) can address. */
export function isPathSafeKey(key: string): boolean {
  const problem = keyProblem(key);
  return problem === undefined || problem === 'reserved';
}

// ---------------------------------------------------------------------------------------------
// Paths

const PLAIN_SEGMENT = /^[^.\s[\]"'\\]+$/;

/** Field path of a child: `a.b`, or `a["b c"]` when the key would be misread in dotted form. */
export function childField(parent: string, key: string): string {
  if (!PLAIN_SEGMENT.test(key)) return `${parent}[${JSON.stringify(key)}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

/** Document path of a child property: `properties.a.properties.b`, bracketed like field paths. */
export function childSchemaPath(parent: string, key: string): string {
  const properties = parent === '' ? 'properties' : `${parent}.properties`;
  return PLAIN_SEGMENT.test(key) ? `${properties}.${key}` : `${properties}[${JSON.stringify(key)}]`;
}

// ---------------------------------------------------------------------------------------------
// Suggestions, in the order they appear on a property

export type TypeFamily = 'string' | 'numeric' | 'boolean' | 'object' | 'array';

export interface FamilyTally {
  family: TypeFamily;
  /** How the family is named to people: `integer` or `number` for numerics. */
  name: string;
  tally: SampleTally;
}

export function typeConflict(target: SuggestionTarget, tallies: FamilyTally[], majority: TypeFamily, chosen: JsonType, widened: boolean, unit: 'sample' | 'value'): SchemaSuggestion {
  const parts = tallies.map(({ family, name, tally }) => {
    const counted = `${name} in ${plural(tally.count, unit)}`;
    return family === majority ? counted : `${counted} (${samplesPhrase(tally)})`;
  });
  const why = widened ? 'the type every value seen can be stored as' : 'the most common type';
  return suggestion(
    target,
    'MUST-FIX',
    `'${target.field}' does not have one type across the samples: ${parts.join(', ')}. It is typed as ${chosen}, ${why}.`,
    `Make the producers send one type. Until they do, events whose '${target.field}' is not ${article(chosen)} fail validation ` +
      'against this schema; convert them with a transformation, or change the type when you review the schema.',
    'DATA_TYPE',
  );
}

function article(type: JsonType): string {
  return type === 'integer' || type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`;
}

/** `whole` names what the field is counted against: "10 samples", "the 6 'user' objects", "the 9 items of 'lines'". */
export function optionalField(target: SuggestionTarget, missing: number, whole: string, nulls: SampleTally, type: JsonType): SchemaSuggestion {
  const absent = nulls.count > 0 ? 'missing or null in' : 'missing from';
  const nullNote = nulls.count > 0 ? ` (null in ${listSamples(nulls)})` : '';
  const nullAdvice = nulls.count > 0 ? ` A null does not validate against the type ${type}: leave the field out of an event rather than sending null.` : '';
  return suggestion(
    target,
    'MEDIUM',
    `'${target.field}' is ${absent} ${missing} of ${whole}${nullNote}, so it is not required.`,
    `Events may leave it out. If every event must carry it, add it to required when you review the schema.${nullAdvice}`,
    'OPTIONAL',
  );
}

export function nullItems(target: SuggestionTarget, nulls: SampleTally, type: JsonType): SchemaSuggestion {
  return suggestion(
    target,
    'LOW',
    `'${target.field}' has null items in ${samplesPhrase(nulls)}; the item type, ${type}, comes from the other items.`,
    `A null item does not validate against the type ${type}: drop null items at the source, or allow null when you review the schema.`,
  );
}

export interface TimeRange {
  from: string;
  to: string;
}

export type TemporalKind = 'date-time' | 'date' | 'epoch-seconds' | 'epoch-millis' | 'epoch-mixed';

const TEMPORAL_WORDING: Record<TemporalKind, string> = {
  'date-time': 'ISO 8601 date-times',
  date: 'ISO 8601 dates',
  'epoch-seconds': 'epoch times in seconds',
  'epoch-millis': 'epoch times in milliseconds',
  'epoch-mixed': 'epoch times in seconds and milliseconds',
};

export function timestampCandidate(target: SuggestionTarget, kind: TemporalKind, range: TimeRange, options: { asText: boolean; temporalName: boolean; key: string }): SchemaSuggestion {
  const text = options.asText ? ', written as text,' : '';
  const check =
    kind.startsWith('epoch') && !options.temporalName
      ? ` Check first: identifiers and amounts can fall in the epoch range too; if '${options.key}' is not a time, ` + `change its data_type to ${options.asText ? 'string' : 'integer'}.`
      : '';
  return suggestion(
    target,
    'LOW',
    `'${target.field}' holds ${TEMPORAL_WORDING[kind]}${text} from ${range.from} to ${range.to}. It can be the dataset's timestamp key.`,
    'Choose it as the timestamp key to index events by the time they happened; without one, events are indexed by ' + `their arrival time (${ARRIVAL_TIME_INDEX.path}).${check}`,
    'INDEX',
  );
}

export function dedupCandidate(target: SuggestionTarget, samples: number, allUuids: boolean): SchemaSuggestion {
  return suggestion(
    target,
    'LOW',
    `'${target.field}' has a different value in each of the ${samples} samples${allUuids ? ' (all UUIDs)' : ''}, so it can identify an event.`,
    'Choose it as the dedup key to drop events that arrive twice. Being unique per event, it makes a poor rollup dimension.',
    'DEDUP',
  );
}

export function highCardinality(target: SuggestionTarget, distinct: number, values: number): SchemaSuggestion {
  return suggestion(
    target,
    'LOW',
    `'${target.field}' has ${distinct} distinct values in ${plural(values, 'sample')} (${Math.round((distinct * 100) / values)}%): a high-cardinality field.`,
    'A high-cardinality field makes rollups ineffective and indexes large: leave it out of rollup dimensions.',
    'ROLLUP',
  );
}

export function personalData(target: SuggestionTarget, what: 'email addresses' | 'IP addresses'): SchemaSuggestion {
  return suggestion(target, 'LOW', `'${target.field}' holds ${what}, which are personal data.`, 'Mask or encrypt it with a transformation before it is stored.', 'TRANSFORMATION');
}

export function formatNote(target: SuggestionTarget, what: 'UUIDs' | 'URLs'): SchemaSuggestion {
  return suggestion(target, '', `'${target.field}' holds ${what}.`);
}

export function numbersAsText(target: SuggestionTarget): SchemaSuggestion {
  return suggestion(
    target,
    'LOW',
    `'${target.field}' arrives as text, but every value is a number.`,
    'It is stored as text. If leading zeros and exact digits do not matter (it is a quantity, not a code), ' + 'store it as long or double instead: the text arrival format allows both.',
  );
}

export function booleansAsText(target: SuggestionTarget): SchemaSuggestion {
  return suggestion(
    target,
    'LOW',
    `'${target.field}' arrives as text, but every value is true or false.`,
    'It is stored as text. Store it as boolean if that is what it means: the text arrival format allows it.',
  );
}

export function datesWithDateTimes(target: SuggestionTarget, dates: SampleTally): SchemaSuggestion {
  return suggestion(
    target,
    'LOW',
    `'${target.field}' mixes ISO 8601 dates (${samplesPhrase(dates)}) with date-times; it is typed as date-time.`,
    'A date alone is read as midnight. Send full date-times if the time of day matters.',
  );
}

export function mixedEpochUnits(target: SuggestionTarget, seconds: SampleTally, millis: SampleTally): SchemaSuggestion {
  return suggestion(
    target,
    'LOW',
    `'${target.field}' mixes epoch seconds (${samplesPhrase(seconds)}) and milliseconds (${samplesPhrase(millis)}).`,
    'Make the producers use one unit: a store reads an epoch in one unit, and a value in the other lands decades away.',
  );
}

export function mixedFormat(target: SuggestionTarget, looksLike: string, matching: number, values: number, others: SampleTally, typedAs: string): SchemaSuggestion {
  return suggestion(
    target,
    'LOW',
    `'${target.field}' holds ${looksLike} in ${matching} of ${values} values, but not in ${samplesPhrase(others)}; it is typed as ${typedAs}.`,
    `Send one format, or clean the odd values with a transformation, so that every value reads as ${looksLike}.`,
  );
}

export function keyName(target: SuggestionTarget, key: string, problem: KeyProblem): SchemaSuggestion {
  // The field path is worth showing only where it says more than the key.
  const atRoot = target.field === key || target.field === `[${JSON.stringify(key)}]`;
  const shown = atRoot ? JSON.stringify(key) : `${JSON.stringify(key)} (${target.field})`;
  const renamed = key.replace(/[.\s]+/g, '_');
  const rename = `Rename it at the source (e.g. ${JSON.stringify(renamed)}) or with a transformation.`;
  const notOffered = ' Until then it is not offered as a timestamp or dedup key.';
  switch (problem) {
    case 'dot':
      return suggestion(target, 'LOW', `The key ${shown} contains a dot, which the dataset configuration reads as a step into a nested object.`, rename + notOffered, 'NAMING');
    case 'space':
      return suggestion(target, 'LOW', `The key ${shown} contains white space, which SQL and most query engines accept only when quoted.`, rename + notOffered, 'NAMING');
    case 'empty':
      return suggestion(
        target,
        'LOW',
        `An empty key (${target.field}) cannot be named in SQL or in the dataset configuration.`,
        'Give it a name at the source or with a transformation.' + notOffered,
        'NAMING',
      );
    case 'reserved':
      return suggestion(
        target,
        'LOW',
        `The key ${shown} is a reserved name in JavaScript. It is kept as an ordinary key, but tools that build objects from events may drop or misread it.`,
        `Rename it at the source (e.g. ${JSON.stringify(key.replace(/^_+|_+$/g, '') + '_value')}) or with a transformation.`,
        'NAMING',
      );
  }
}
