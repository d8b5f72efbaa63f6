// Running a template against a Live dataset. Placeholder values never become SQL or JSON text:
// the dataset must be queryable (its datasource name is written by us), dates must be dates, the
// limit a bounded integer; SQL gets typed bound parameters, and a native JSON query is parsed
// first and only then receives the values, so nothing a caller sends can change its structure.
import { GatewayError } from '../../errors.js';
import { GRANULARITY_PERIODS, queryInterval } from '../../platform/query-engine/native-to-sql.js';
import type { Datasource, QueryEngine, QueryParameter } from '../../platform/query-engine/query-engine.js';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { datasetIdLengthProblem } from '../datasets/index.js';
import type { DatasetService } from '../datasets/index.js';
import type { TemplateRecord } from './types.js';

/** The original's aggregationLevel values; each is a Druid granularity with an ISO period. */
export const AGGREGATION_LEVELS = ['five_minute', 'ten_minute', 'fifteen_minute', 'thirty_minute', 'hour', 'six_hour', 'eight_hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type AggregationLevel = (typeof AGGREGATION_LEVELS)[number];
export const AGGREGATION_PERIODS: Record<AggregationLevel, string> = Object.fromEntries(AGGREGATION_LEVELS.map((level) => [level, GRANULARITY_PERIODS[level]])) as Record<AggregationLevel, string>;

export const MAX_RANGE_DAYS = 30;
/** Deepest a native query may nest: twice the 20 filter levels the engine runs (an and/or adds an
 * array level), and room to spare. Walking a deeper document would overflow the stack. */
const MAX_NATIVE_DEPTH = 100;
const DAY_MS = 86_400_000;

export interface RunInput {
  startdate: string;
  enddate: string;
  dataset: string;
  aggregationLevel?: AggregationLevel | null;
  limit?: number | null;
}

interface Values {
  DATASET: string;
  STARTDATE: string;
  ENDDATE: string;
  LIMIT: number;
  /** ISO period (PT1H): what SQL's TIME_FLOOR and a native {type: period} granularity take. */
  AGGREGATIONLEVEL: string;
  /** The level's name (hour): what a native query's `"granularity": "..."` takes. */
  AGGREGATIONLEVEL_NAME: string;
}

const NAME_ALIASES: Record<string, Exclude<keyof Values, 'AGGREGATIONLEVEL_NAME'>> = {
  DATASET: 'DATASET',
  STARTDATE: 'STARTDATE',
  ENDDATE: 'ENDDATE',
  LIMIT: 'LIMIT',
  LIMITS: 'LIMIT',
  AGGREGATIONLEVEL: 'AGGREGATIONLEVEL',
  GRANULARITY: 'AGGREGATIONLEVEL',
};

function invalid(message: string): GatewayError {
  return new GatewayError('QUERY_TEMPLATE_INVALID_INPUT', message);
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** A date from ISO 8601 text (date, or date and time, with or without a zone; no zone = UTC), or
 * "YYYY-MM-DD HH:mm:ss" as the original writes it. Only real calendar dates pass. */
export function parseDate(value: string, field: string): number {
  const match = DATE_PATTERN.exec(value);
  const refuse = () => invalid(`${field} ${JSON.stringify(value.slice(0, 40))} is not a date (use ISO 8601, e.g. 2026-11-01 or 2026-11-01T00:00:00Z)`);
  if (!match) throw refuse();
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = match;
  const ms = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${fraction.slice(0, 4)}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
  // Date.parse rolls 2026-02-30 over to March; the calendar check refuses it.
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (!Number.isFinite(ms) || calendar.getUTCMonth() !== Number(month) - 1 || calendar.getUTCDate() !== Number(day) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) {
    throw refuse();
  }
  return ms;
}

function placeholderName(raw: string): keyof Values {
  const name = NAME_ALIASES[raw.toUpperCase()];
  if (!name) throw invalid(`the template uses {{${raw}}}, which a run does not fill in (known: DATASET, STARTDATE, ENDDATE, LIMIT, AGGREGATIONLEVEL)`);
  return name;
}

/** True when position `index` of `text` is inside a '...' literal (SQL) or "..." string (JSON). */
function insideQuotes(text: string, index: number, quote: "'" | '"'): boolean {
  let inside = false;
  for (let i = 0; i < index; i++) {
    const char = text[i];
    if (quote === '"' && char === '\\') i++;
    else if (char === quote) inside = !inside;
  }
  return inside;
}

/** The bound parameter type of each placeholder (DATASET is never bound: it is our reference). */
const PARAMETER_TYPES: Record<Exclude<keyof Values, 'DATASET'>, QueryParameter['type']> = {
  STARTDATE: 'timestamp',
  ENDDATE: 'timestamp',
  LIMIT: 'integer',
  AGGREGATIONLEVEL: 'varchar',
  AGGREGATIONLEVEL_NAME: 'varchar',
};

/** SQL with each placeholder replaced by a typed parameter marker (or our datasource reference). */
export function bindSql(template: string, values: Values, engine: QueryEngine, datasource: Datasource): { sql: string; parameters: QueryParameter[] } {
  const parameters: QueryParameter[] = [];
  // An optional TIMESTAMP keyword and the quotes a template may put around a placeholder go too.
  const sql = template.replace(/(TIMESTAMP\s*)?(['"]?)\{\{\s*([A-Za-z_]+)\s*\}\}\2/gi, (match, _keyword, quote: string, raw: string, offset: number) => {
    const name = placeholderName(raw);
    if (!quote && insideQuotes(template, offset, "'")) {
      throw invalid(`{{${raw}}} sits inside a quoted SQL string; a placeholder must stand alone (it is sent as a bound parameter)`);
    }
    if (name === 'DATASET') return engine.datasourceReference(datasource);
    parameters.push({ type: PARAMETER_TYPES[name], value: values[name] });
    return engine.parameterMarker(parameters.length, PARAMETER_TYPES[name]);
  });
  return { sql, parameters };
}

/** A native query: parsed with sentinels where placeholders stand, then given the values. */
export function bindNative(template: string, values: Values, datasource: Datasource): Record<string, unknown> {
  // Private-use characters mark where a placeholder stood; no real query contains them.
  const sentinel = (name: keyof Values) => `\uE000${name}\uE001`;
  const text = template.replace(/("?)\{\{\s*([A-Za-z_]+)\s*\}\}("?)/g, (match, open: string, raw: string, close: string, offset: number) => {
    const name = placeholderName(raw);
    const escaped = JSON.stringify(sentinel(name)).slice(1, -1);
    if (open && close) return `"${escaped}"`;
    // Inside a longer string: the sentinel joins that string. In a bare position: it becomes one.
    const inString = insideQuotes(template, offset + open.length, '"');
    return inString ? `${open}${escaped}${close}` : `${open}"${escaped}"${close}`;
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalid(`Failed to parse the query: ${(error as Error).message}`);
  }
  const tooDeep = pathDeeperThan(parsed, MAX_NATIVE_DEPTH);
  if (tooDeep !== undefined) throw invalid(`The query nests deeper than ${MAX_NATIVE_DEPTH} levels (at ${tooDeep.slice(0, 200)})`);
  const fill = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string') {
      if (value === sentinel('AGGREGATIONLEVEL') && key === 'granularity') return values.AGGREGATIONLEVEL_NAME;
      for (const name of Object.keys(values) as (keyof Values)[]) {
        if (value === sentinel(name)) return name === 'DATASET' ? datasource.name : values[name];
      }
      return value.replace(/\uE000([A-Z]+)\uE001/g, (_m, name: keyof Values) => String(name === 'DATASET' ? datasource.name : values[name]));
    }
    if (Array.isArray(value)) return value.map((inner) => fill(inner));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, fill(inner, name)]));
    return value;
  };
  const query = fill(parsed);
  if (query === null || typeof query !== 'object' || Array.isArray(query)) throw invalid('a json template must hold a JSON object (a Druid native query)');
  return { ...(query as Record<string, unknown>), dataSource: datasource.name };
}

export function createTemplateRunner(datasets: DatasetService, engine: QueryEngine, options: { maxRows: number }) {
  return async function run(template: TemplateRecord, input: RunInput): Promise<unknown[]> {
    const datasetProblem = datasetIdLengthProblem(input.dataset);
    if (datasetProblem) throw invalid(`dataset ${datasetProblem}`);
    const start = parseDate(input.startdate, 'startdate');
    const end = parseDate(input.enddate, 'enddate');
    if (end <= start) throw new GatewayError('DATA_OUT_INVALID_DATE_RANGE', 'Invalid date range! enddate must be after startdate');
    if (end - start > MAX_RANGE_DAYS * DAY_MS) {
      throw new GatewayError('DATA_OUT_INVALID_DATE_RANGE', `Invalid date range! make sure your range cannot be more than ${MAX_RANGE_DAYS} days`);
    }
    const limit = input.limit ?? options.maxRows;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > options.maxRows) throw invalid(`limit must be an integer from 1 to ${options.maxRows} (TEMPLATE_QUERY_MAX_ROWS; got ${limit})`);

    const notQueryable = () => new GatewayError('DATA_OUT_SOURCE_NOT_FOUND', `Dataset ${input.dataset.replaceAll('\u0000', '\\u0000')} is not available for querying`);
    // No dataset id holds a NUL (the database cannot store one): not found, without asking it.
    if (input.dataset.includes('\u0000')) throw notQueryable();
    const dataset = await datasets.get(input.dataset, { stage: 'live' }).catch((error: unknown) => {
      throw error instanceof GatewayError && error.code === 'DATASET_NOT_FOUND' ? notQueryable() : error;
    });
    if (dataset.status !== 'Live') throw notQueryable();
    const datasource = await engine.datasource(dataset.datasetId);
    if (!datasource) throw new GatewayError('DATA_OUT_SOURCE_NOT_FOUND', `Datasource of dataset ${input.dataset} is not available for querying`);

    const values: Values = {
      DATASET: datasource.name,
      STARTDATE: new Date(start).toISOString(),
      ENDDATE: new Date(end).toISOString(),
      LIMIT: limit,
      AGGREGATIONLEVEL: AGGREGATION_PERIODS[input.aggregationLevel ?? 'day'],
      AGGREGATIONLEVEL_NAME: input.aggregationLevel ?? 'day',
    };
    if (template.queryType === 'sql') {
      const { sql, parameters } = bindSql(template.query, values, engine, datasource);
      // A template without {{LIMIT}} still returns at most the configured number of rows.
      return engine.runSql(sql, parameters, { maxRows: options.maxRows });
    }
    const query = bindNative(template.query, values, datasource);
    // The range rule holds for the interval the query really runs on, not only the request's dates.
    const { start: from, end: to } = queryInterval(query.intervals);
    if (to - from > MAX_RANGE_DAYS * DAY_MS) {
      throw new GatewayError('DATA_OUT_INVALID_DATE_RANGE', `Invalid date range! make sure your range cannot be more than ${MAX_RANGE_DAYS} days (the template's interval spans more)`);
    }
    return engine.runNative(datasource, query);
  };
}
