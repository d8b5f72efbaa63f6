// Schema inference from sample events. One pass over the samples tallies, for every field (every
// position in the schema), what its values look like; a second pass over those tallies writes the
// JSON Schema document, the suggestions and the configuration hints. Pure: no I/O and no state
// kept between calls (the original kept rollup figures in a module global, shared across requests).
//
// Determinism: keys are written in code-unit order and every figure is a count, a minimum or a
// maximum, so the same samples in any order give the same document. Only messages that name the
// samples which disagree (type conflicts, mixed formats, nulls) depend on the order.
import { dataMappings } from './data-mappings.js';
import { epochToMillis, numberFormat, stringFormat, type NumberFormat, type StringFormat } from './formats.js';
import * as say from './suggestions.js';
import {
  JSON_SCHEMA_2020_12,
  type DataType,
  type InferenceLimits,
  type InferredSchema,
  type JsonType,
  type PropertySchema,
  type PropertySuggestion,
  type RemovedKey,
  type RollupSuggestion,
  type SchemaSuggestion,
} from './types.js';
import { textOf } from '../../validation/json-object.js';

/** A sample the algorithm cannot take: past a limit, or not JSON. The message names where. */
export class InferenceInputError extends Error {
  override readonly name = 'InferenceInputError';
}

/** How many sample numbers a message lists before it says "and N more". */
const LISTED_SAMPLES = 5;
/** One value covering at least this share (%) of a field makes it a rollup dimension (the original's rollup_ratio). */
const ROLLUP_SHARE = 80;
/**
 * A text field whose distinct values reach this share of its values is reported as high-cardinality,
 * once there are enough values to tell. The original's figure (100 − top share) is kept for the
 * rollup summary, but it calls a field of 8 evenly spread cities "high-cardinality".
 */
const HIGH_CARDINALITY_SHARE = 0.5;
const HIGH_CARDINALITY_MIN_VALUES = 5;

class Tally implements say.SampleTally {
  count = 0;
  sampleCount = 0;
  samples: number[] = [];
  #last = -1;

  // Samples are walked in order, so the values of one sample reach a field one after another.
  add(sample: number): void {
    this.count += 1;
    if (sample === this.#last) return;
    this.#last = sample;
    this.sampleCount += 1;
    if (this.samples.length < LISTED_SAMPLES) this.samples.push(sample);
  }
}

function tallyIn<K extends string>(tallies: Partial<Record<K, Tally>>, key: K, sample: number): void {
  (tallies[key] ??= new Tally()).add(sample);
}

/** Everything seen at one position of the schema, over all samples. */
class FieldNode {
  /** Non-null values. */
  values = 0;
  readonly nulls = new Tally();
  readonly families: Partial<Record<say.TypeFamily, Tally>> = {};
  /** Some number had a fraction, so the field is a number rather than an integer. */
  hasFraction = false;
  readonly strings: Partial<Record<StringFormat, Tally>> = {};
  /** Epoch units of numbers, and of epoch strings. */
  readonly numbers: Partial<Record<NumberFormat, Tally>> = {};
  /** Times the field held an object: what its children's presence is counted against. */
  objects = 0;
  children: Map<string, FieldNode> | undefined;
  items: FieldNode | undefined;
  /** Value counts for cardinality and uniqueness; kept only outside arrays, where a value is one per sample. */
  readonly distinct: Map<string | number, number> | undefined;
  earliestText: string | undefined;
  latestText: string | undefined;
  earliestEpochMs = Number.POSITIVE_INFINITY;
  latestEpochMs = Number.NEGATIVE_INFINITY;

  constructor(
    /** The object key, or undefined for the root and for array items. */
    readonly key: string | undefined,
    readonly target: say.SuggestionTarget,
    readonly depth: number,
    readonly inArray: boolean,
    /** Every key on the way here can be written in a dotted path. */
    readonly pathSafe: boolean,
  ) {
    if (!inArray) this.distinct = new Map();
  }
}

// ---------------------------------------------------------------------------------------------
// Pass 1: tally the samples

class Walker {
  #fields = 0;

  constructor(private readonly limits: InferenceLimits) {}

  observeSample(root: FieldNode, sample: unknown, index: number): void {
    if (sample === null || typeof sample !== 'object' || Array.isArray(sample)) {
      throw new InferenceInputError(`${where(index)} is not a JSON object`);
    }
    root.values += 1;
    tallyIn(root.families, 'object', index);
    this.observeObject(root, sample as Record<string, unknown>, index);
  }

  private observeObject(node: FieldNode, object: Record<string, unknown>, sample: number): void {
    node.objects += 1;
    node.children ??= new Map();
    // Object.keys gives own keys only, and an own `__proto__` (as JSON.parse makes it) shadows the
    // inherited accessor, so reading it gives the value, never the prototype.
    for (const key of Object.keys(object)) {
      const value = object[key];
      if (value === undefined) continue;
      let child = node.children.get(key);
      if (!child) {
        child = this.create(
          new FieldNode(
            key,
            { field: say.childField(node.target.field, key), path: say.childSchemaPath(node.target.path, key) },
            node.depth + 1,
            node.inArray,
            node.pathSafe && say.isPathSafeKey(key),
          ),
          sample,
        );
        node.children.set(key, child);
      }
      this.observe(child, value, sample);
    }
  }

  private create(node: FieldNode, sample: number): FieldNode {
    if (node.depth > this.limits.maxDepth) {
      throw new InferenceInputError(`${where(sample)}: '${node.target.field}' is nested ${node.depth} levels deep; at most ${this.limits.maxDepth} levels are inferred`);
    }
    this.#fields += 1;
    if (this.#fields > this.limits.maxFields) {
      throw new InferenceInputError(`the samples hold more than ${this.limits.maxFields} distinct fields (${where(sample)} adds '${node.target.field}'); infer from fewer or narrower samples`);
    }
    return node;
  }

  private observe(node: FieldNode, value: unknown, sample: number): void {
    if (value === null) {
      node.nulls.add(sample);
      return;
    }
    switch (typeof value) {
      case 'string':
        node.values += 1;
        tallyIn(node.families, 'string', sample);
        observeString(node, value, sample);
        return;
      case 'number':
        if (!Number.isFinite(value)) break;
        node.values += 1;
        tallyIn(node.families, 'numeric', sample);
        observeNumber(node, value, sample);
        return;
      case 'boolean':
        node.values += 1;
        tallyIn(node.families, 'boolean', sample);
        return;
      case 'object':
        node.values += 1;
        if (Array.isArray(value)) {
          tallyIn(node.families, 'array', sample);
          if (value.length === 0) return;
          node.items ??= this.create(new FieldNode(undefined, { field: `${node.target.field}[*]`, path: `${node.target.path}.items` }, node.depth + 1, true, node.pathSafe), sample);
          for (const item of value) this.observe(node.items, item, sample);
        } else {
          tallyIn(node.families, 'object', sample);
          this.observeObject(node, value as Record<string, unknown>, sample);
        }
        return;
    }
    throw new InferenceInputError(`${where(sample)}: '${node.target.field}' holds a value that is not JSON (${textOf(value).slice(0, 40)})`);
  }
}

function where(sample: number): string {
  return `sample #${sample + 1} (index ${sample})`;
}

function observeString(node: FieldNode, value: string, sample: number): void {
  const format = stringFormat(value);
  tallyIn(node.strings, format, sample);
  if (format === 'date-time' || format === 'date') {
    // ISO 8601 text of one shape sorts in time order, which is all a range in a message needs.
    if (node.earliestText === undefined || value < node.earliestText) node.earliestText = value;
    if (node.latestText === undefined || value > node.latestText) node.latestText = value;
    return;
  }
  if (format === 'epoch') {
    const number = Number(value);
    tallyIn(node.numbers, numberFormat(number), sample);
    trackEpoch(node, number);
    return;
  }
  if (node.distinct) node.distinct.set(value, (node.distinct.get(value) ?? 0) + 1);
}

function observeNumber(node: FieldNode, value: number, sample: number): void {
  if (!Number.isInteger(value)) node.hasFraction = true;
  const format = numberFormat(value);
  tallyIn(node.numbers, format, sample);
  if (format !== 'plain') trackEpoch(node, value);
  else if (node.distinct && Number.isInteger(value)) node.distinct.set(value, (node.distinct.get(value) ?? 0) + 1);
}

function trackEpoch(node: FieldNode, value: number): void {
  const ms = epochToMillis(value);
  if (ms < node.earliestEpochMs) node.earliestEpochMs = ms;
  if (ms > node.latestEpochMs) node.latestEpochMs = ms;
}

// ---------------------------------------------------------------------------------------------
// Pass 2: write the document

/** Tie-break when no type is the most common: containers keep their structure, then the widest scalar. */
const FAMILY_ORDER: readonly say.TypeFamily[] = ['object', 'array', 'string', 'numeric', 'boolean'];
const SCALAR_FAMILIES: ReadonlySet<say.TypeFamily> = new Set(['string', 'numeric', 'boolean']);
/** Tie-break between string formats of equal count. */
const FORMAT_ORDER: readonly StringFormat[] = ['date-time', 'date', 'epoch', 'uuid', 'email', 'ipv4', 'ipv6', 'uri', 'numeric', 'boolean', 'text'];
const FORMAT_WORDING: Record<StringFormat, string> = {
  'date-time': 'ISO 8601 date-times',
  date: 'ISO 8601 dates',
  epoch: 'epoch times',
  numeric: 'numbers',
  boolean: 'true or false',
  uuid: 'UUIDs',
  email: 'email addresses',
  ipv4: 'IP addresses',
  ipv6: 'IP addresses',
  uri: 'URLs',
  text: 'text',
};

interface TimestampChoice {
  field: string;
  inEverySample: boolean;
  temporalName: boolean;
  /** A date alone orders events by day only, so it comes after date-times and epochs. */
  dateOnly: boolean;
}

interface DedupChoice {
  field: string;
  uuids: boolean;
  depth: number;
}

interface Writer {
  sampleCount: number;
  suggestions: SchemaSuggestion[];
  removedKeys: RemovedKey[];
  timestamps: TimestampChoice[];
  dedup: DedupChoice[];
  rollup: RollupSuggestion[];
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function present<K extends string>(tallies: Partial<Record<K, Tally>>, order: readonly K[]): [K, Tally][] {
  return order.flatMap((key) => (tallies[key] ? [[key, tallies[key]] as [K, Tally]] : []));
}

/** The entry with the highest count; the first in `order` among equals. */
function mostCommon<K extends string>(entries: [K, Tally][]): [K, Tally] {
  return entries.reduce((best, entry) => (entry[1].count > best[1].count ? entry : best));
}

/** One tally for several: exact outside arrays, where each sample gives a field one value. */
function mergeTallies(tallies: Tally[]): say.SampleTally {
  const samples = [...new Set(tallies.flatMap((tally) => tally.samples))].sort((a, b) => a - b).slice(0, LISTED_SAMPLES);
  return {
    count: tallies.reduce((sum, tally) => sum + tally.count, 0),
    sampleCount: tallies.reduce((sum, tally) => sum + tally.sampleCount, 0),
    samples,
  };
}

/** What the presence of a field is counted against, in words: "10 samples", "the 4 'user' objects". */
function wholeOf(parent: FieldNode): string {
  if (parent.key === undefined && !parent.inArray) return `${parent.objects} samples`;
  if (parent.key === undefined) return `the ${parent.objects} items of '${parent.target.field.slice(0, -3)}'`;
  return `the ${parent.objects} '${parent.target.field}' objects`;
}

function writeObject(node: FieldNode, writer: Writer): { properties: Record<string, PropertySchema>; required: string[] } {
  // No prototype: a key such as `__proto__` or `constructor` becomes an ordinary property.
  const properties = Object.create(null) as Record<string, PropertySchema>;
  const required: string[] = [];
  for (const key of [...(node.children?.keys() ?? [])].sort()) {
    const child = node.children!.get(key)!;
    const schema = writeField(child, writer, node);
    if (!schema) continue;
    properties[key] = schema;
    if (child.values === node.objects) required.push(key);
  }
  return { properties, required };
}

/** The property schema of one field, or undefined when no sample gave it a type (it is then listed in removedKeys). */
function writeField(node: FieldNode, writer: Writer, parent: FieldNode | undefined): PropertySchema | undefined {
  const families = present(node.families, FAMILY_ORDER);
  const field = node.target.field;
  if (families.length === 0) {
    writer.removedKeys.push({ key: field, value: null });
    return undefined;
  }
  const [majority] = mostCommon(families);
  const conflict = families.length > 1;
  // Scalars of several types widen to string, which can store them all; containers cannot be
  // widened into one another, so the most common type wins.
  const widened = conflict && families.every(([family]) => SCALAR_FAMILIES.has(family));
  const family = widened ? 'string' : majority;

  // Children write their suggestions first; this field's own go in front of them afterwards.
  const mark = writer.suggestions.length;
  const own: SchemaSuggestion[] = [];
  let schema: PropertySchema;
  switch (family) {
    case 'object': {
      const { properties, required } = writeObject(node, writer);
      if (Object.keys(properties).length === 0) {
        writer.removedKeys.push({ key: field, value: {} });
        return undefined;
      }
      schema = { type: 'object', arrival_format: 'object', data_type: 'object', properties, additionalProperties: true, required };
      break;
    }
    case 'array': {
      const items = node.items && writeField(node.items, writer, undefined);
      if (!items) {
        writer.removedKeys.push({ key: field, value: [] });
        return undefined;
      }
      schema = { type: 'array', arrival_format: 'array', data_type: 'array', items };
      break;
    }
    case 'string':
      schema = { type: 'string', arrival_format: 'text', data_type: conflict ? 'string' : stringDataType(node, own, writer) };
      break;
    case 'numeric': {
      const type = node.hasFraction ? 'number' : 'integer';
      schema = { type, arrival_format: 'number', data_type: conflict ? type : numberDataType(node, type, own, writer) };
      break;
    }
    case 'boolean':
      schema = { type: 'boolean', arrival_format: 'boolean', data_type: 'boolean' };
      break;
  }

  const first: SchemaSuggestion[] = [];
  if (conflict) {
    // Most common first; `families` is already in tie-break order and the sort is stable.
    const tallies = [...families]
      .sort((a, b) => b[1].count - a[1].count)
      .map(([kind, tally]) => ({ family: kind, name: kind === 'numeric' ? (node.hasFraction ? 'number' : 'integer') : kind, tally }));
    first.push(say.typeConflict(node.target, tallies, majority, schema.type, widened, node.inArray ? 'value' : 'sample'));
  }
  if (parent) {
    const missing = parent.objects - node.values;
    // As in the original, one sample cannot show that a field is optional.
    if (missing > 0 && parent.objects >= 2) first.push(say.optionalField(node.target, missing, wholeOf(parent), node.nulls, schema.type));
  } else if (node.nulls.count > 0) {
    first.push(say.nullItems(node.target, node.nulls, schema.type));
  }
  const problem = node.key === undefined ? undefined : say.keyProblem(node.key);
  if (problem) own.push(say.keyName(node.target, node.key!, problem));

  const suggestions = [...first, ...own];
  if (suggestions.length > 0) {
    schema.suggestions = suggestions.map(propertySuggestion);
    writer.suggestions.splice(mark, 0, ...suggestions);
  }
  return schema;
}

function propertySuggestion({ field: _field, ...rest }: SchemaSuggestion): PropertySuggestion {
  return rest;
}

function epochKind(node: FieldNode): say.TemporalKind {
  const seconds = node.numbers['epoch-seconds'];
  const millis = node.numbers['epoch-millis'];
  return seconds && millis ? 'epoch-mixed' : seconds ? 'epoch-seconds' : 'epoch-millis';
}

function offerTimestamp(node: FieldNode, kind: say.TemporalKind, asText: boolean, own: SchemaSuggestion[], writer: Writer): void {
  // A timestamp key names one value per event, by a dotted path: not inside arrays, not through odd keys.
  if (node.inArray || !node.pathSafe) return;
  const range = kind.startsWith('epoch') ? { from: new Date(node.earliestEpochMs).toISOString(), to: new Date(node.latestEpochMs).toISOString() } : { from: node.earliestText!, to: node.latestText! };
  const temporalName = say.isTemporalName(node.key ?? '');
  own.push(say.timestampCandidate(node.target, kind, range, { asText, temporalName, key: node.key ?? '' }));
  writer.timestamps.push({ field: node.target.field, inEverySample: node.values === writer.sampleCount, temporalName, dateOnly: kind === 'date' });
}

/**
 * Rollup figures for a text or integer field outside arrays, and a dedup or high-cardinality
 * suggestion from them. Returns whether the field was offered as a dedup key.
 */
function judgeCardinality(node: FieldNode, text: boolean, uuids: boolean, own: SchemaSuggestion[], writer: Writer): boolean {
  const distinct = node.distinct;
  if (!distinct || distinct.size === 0) return false;
  let counted = 0;
  let top = 0;
  for (const count of distinct.values()) {
    counted += count;
    if (count > top) top = count;
  }
  const share = Math.round((top * 100) / counted);
  if (text) {
    writer.rollup.push({ field: node.target.field, path: node.target.path, cardinality: 100 - share, index: share >= ROLLUP_SHARE });
  }
  const samples = writer.sampleCount;
  const unique = samples >= 2 && counted === samples && node.values === samples && distinct.size === samples;
  if (unique && node.pathSafe && (uuids || say.isIdentifierName(node.key ?? ''))) {
    own.push(say.dedupCandidate(node.target, samples, uuids));
    writer.dedup.push({ field: node.target.field, uuids, depth: node.depth });
    return true;
  }
  if (text && counted >= HIGH_CARDINALITY_MIN_VALUES && distinct.size >= counted * HIGH_CARDINALITY_SHARE) {
    own.push(say.highCardinality(node.target, distinct.size, counted));
  }
  return false;
}

function stringDataType(node: FieldNode, own: SchemaSuggestion[], writer: Writer): DataType {
  const formats = present(node.strings, FORMAT_ORDER);
  const only = formats.length === 1 ? formats[0]![0] : undefined;
  const has = (format: StringFormat) => node.strings[format] !== undefined;
  const within = (...allowed: StringFormat[]) => formats.every(([format]) => allowed.includes(format));

  if (only === 'date-time' || only === 'date') {
    offerTimestamp(node, only, false, own, writer);
    return only;
  }
  if (formats.length === 2 && has('date') && has('date-time')) {
    own.push(say.datesWithDateTimes(node.target, node.strings.date!));
    offerTimestamp(node, 'date-time', false, own, writer);
    return 'date-time';
  }
  if (only === 'epoch') {
    offerTimestamp(node, epochKind(node), true, own, writer);
    return 'epoch';
  }

  const uuids = only === 'uuid';
  const dedup = !node.inArray && judgeCardinality(node, true, uuids, own, writer);
  if (within('numeric', 'epoch')) own.push(say.numbersAsText(node.target));
  else if (only === 'boolean') own.push(say.booleansAsText(node.target));
  else if (only === 'email') own.push(say.personalData(node.target, 'email addresses'));
  else if (within('ipv4', 'ipv6')) own.push(say.personalData(node.target, 'IP addresses'));
  else if (uuids && !dedup) own.push(say.formatNote(node.target, 'UUIDs'));
  else if (only === 'uri') own.push(say.formatNote(node.target, 'URLs'));
  else if (formats.length > 1) {
    const [format, tally] = mostCommon(formats);
    const total = node.families.string!.count;
    if (format !== 'text' && tally.count * 2 >= total) {
      const others = formats.filter(([other]) => other !== format).map(([, otherTally]) => otherTally);
      own.push(say.mixedFormat(node.target, FORMAT_WORDING[format], tally.count, total, mergeTallies(others), 'string'));
    }
  }
  return 'string';
}

function numberDataType(node: FieldNode, type: JsonType, own: SchemaSuggestion[], writer: Writer): DataType {
  if (type !== 'integer') return 'number';
  const plain = node.numbers.plain;
  const epochs = (node.numbers['epoch-seconds']?.count ?? 0) + (node.numbers['epoch-millis']?.count ?? 0);
  if (epochs > 0 && !plain) {
    const kind = epochKind(node);
    if (kind === 'epoch-mixed') own.push(say.mixedEpochUnits(node.target, node.numbers['epoch-seconds']!, node.numbers['epoch-millis']!));
    offerTimestamp(node, kind, false, own, writer);
    return 'epoch';
  }
  if (epochs > 0 && plain && epochs * 2 >= node.values) {
    own.push(say.mixedFormat(node.target, 'epoch times', epochs, node.values, plain, 'integer'));
  }
  if (!node.inArray) judgeCardinality(node, false, false, own, writer);
  return 'integer';
}

/**
 * Infers a JSON Schema 2020-12 document, suggestions and configuration hints from sample events.
 * Throws InferenceInputError when a sample is not a JSON object or the samples go past a limit
 * (the number of samples itself is the caller's to check).
 */
export function inferSchema(samples: readonly unknown[], limits: InferenceLimits): InferredSchema {
  const root = new FieldNode(undefined, { field: '', path: '' }, 0, false, true);
  const walker = new Walker(limits);
  samples.forEach((sample, index) => walker.observeSample(root, sample, index));

  const writer: Writer = { sampleCount: samples.length, suggestions: [], removedKeys: [], timestamps: [], dedup: [], rollup: [] };
  const { properties, required } = writeObject(root, writer);

  const timestamps = writer.timestamps.sort(
    (a, b) => Number(b.inEverySample) - Number(a.inEverySample) || Number(b.temporalName) - Number(a.temporalName) || Number(a.dateOnly) - Number(b.dateOnly) || compareText(a.field, b.field),
  );
  const dedupKeys = writer.dedup.sort((a, b) => Number(b.uuids) - Number(a.uuids) || a.depth - b.depth || compareText(a.field, b.field));
  return {
    schema: { $schema: JSON_SCHEMA_2020_12, type: 'object', properties, additionalProperties: true, required },
    suggestions: writer.suggestions,
    configurations: {
      indexConfiguration: {
        index: [{ ...say.ARRIVAL_TIME_INDEX }, ...timestamps.map(({ field }) => ({ label: field, path: field }))],
        rollupSuggestions: writer.rollup,
      },
      processing: { dedupKeys: dedupKeys.map(({ field }) => field), dropDuplicates: ['Yes', 'No'] },
    },
    dataMappings: dataMappings(),
    removedKeys: writer.removedKeys,
  };
}
