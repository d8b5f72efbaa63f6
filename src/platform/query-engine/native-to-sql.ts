// Druid native queries (timeseries, groupBy, topN, scan, timeBoundary) translated to one
// parameterised SQL statement over a datasource view, and the rows shaped back into Druid's
// result format. Every value from the query is a bound parameter; every name is checked against
// the datasource's columns. Anything unsupported is refused, naming the construct.
import { GatewayError } from '../../errors.js';
import { quoteIdentifier } from './names.js';
import { isObject, textOf } from '../../validation/json-object.js';

type Json = Record<string, unknown>;

export interface DatasourceShape {
  /** Schema-qualified, quoted relation name. */
  relation: string;
  /** Column names (as users write them, e.g. `device.os`). */
  columns: ReadonlySet<string>;
}

export interface SqlPlan {
  sql: string;
  params: unknown[];
  shape: (rows: Record<string, unknown>[]) => unknown[];
}

/** Druid's named granularities and the ISO periods they bucket by (null: one bucket). */
export const GRANULARITY_PERIODS = {
  all: null,
  none: null,
  second: 'PT1S',
  minute: 'PT1M',
  five_minute: 'PT5M',
  ten_minute: 'PT10M',
  fifteen_minute: 'PT15M',
  thirty_minute: 'PT30M',
  hour: 'PT1H',
  six_hour: 'PT6H',
  eight_hour: 'PT8H',
  day: 'P1D',
  week: 'P1W',
  month: 'P1M',
  quarter: 'P3M',
  year: 'P1Y',
} as const satisfies Record<string, string | null>;
const PERIOD_PATTERN = /^P(?:\d+[YMWD])*(?:T(?:\d+[HMS])*)?$/;
/** An IANA zone name (Asia/Kolkata, America/Argentina/Buenos_Aires) or UTC; PostgreSQL refuses one it does not know. */
const TIME_ZONE_PATTERN = /^[A-Za-z][A-Za-z0-9_+-]{0,30}(\/[A-Za-z0-9_+-]{1,30}){0,2}$/;

const AGGREGATE_FUNCTIONS: Record<string, string> = {
  longSum: 'SUM',
  doubleSum: 'SUM',
  floatSum: 'SUM',
  longMin: 'MIN',
  doubleMin: 'MIN',
  floatMin: 'MIN',
  longMax: 'MAX',
  doubleMax: 'MAX',
  floatMax: 'MAX',
};

function unsupported(what: string): GatewayError {
  return new GatewayError('DATA_OUT_INVALID_INPUT', `the embedded query engine does not support ${what}`);
}

/** The one "start/end" interval of a native query (string, list, or {type: intervals} object). */
export function queryInterval(intervals: unknown): { start: number; end: number } {
  const list = typeof intervals === 'string' ? [intervals] : Array.isArray(intervals) ? intervals : isObject(intervals) && Array.isArray(intervals.intervals) ? intervals.intervals : null;
  if (!list || list.length !== 1 || typeof list[0] !== 'string') throw unsupported('queries without exactly one interval "start/end"');
  const [start, end] = list[0].split('/');
  const startMs = Date.parse(start ?? '');
  const endMs = Date.parse(end ?? '');
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs)) throw new GatewayError('DATA_OUT_INVALID_INPUT', `interval ${JSON.stringify(list[0])} is not "start/end" with two dates`);
  return { start: startMs, end: endMs };
}

class Builder {
  readonly params: unknown[] = [];
  /** Start of the query's interval (ISO, UTC), once interval() has run. */
  intervalStart = '';
  constructor(private readonly source: DatasourceShape) {}

  bind(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  column(name: unknown, where: string): string {
    if (name === '__time') return '"__time"';
    if (typeof name !== 'string' || !this.source.columns.has(name)) {
      throw new GatewayError('DATA_OUT_INVALID_INPUT', `${where}: ${JSON.stringify(name)} is not a column of the datasource`);
    }
    return quoteIdentifier(name);
  }

  outputName(name: unknown, where: string): string {
    if (typeof name !== 'string' || name === '' || name.length > 200) throw new GatewayError('DATA_OUT_INVALID_INPUT', `${where}: a name is required`);
    return quoteIdentifier(name);
  }

  bucket(granularity: unknown): string | null {
    let period: string | null;
    let timeZone: unknown;
    if (typeof granularity === 'string' || granularity === undefined) {
      const key = granularity ?? 'all';
      if (!(key in GRANULARITY_PERIODS)) throw unsupported(`granularity ${JSON.stringify(key)}`);
      period = GRANULARITY_PERIODS[key as keyof typeof GRANULARITY_PERIODS];
    } else if (isObject(granularity) && granularity.type === 'period' && typeof granularity.period === 'string' && PERIOD_PATTERN.test(granularity.period)) {
      period = granularity.period;
      timeZone = granularity.timeZone;
    } else if (isObject(granularity) && (granularity.type === 'all' || granularity.type === 'none')) {
      // One bucket whatever the time zone (the console writes {type: all, timeZone}).
      period = null;
      timeZone = granularity.timeZone;
    } else {
      throw unsupported(`granularity ${JSON.stringify(granularity).slice(0, 80)}`);
    }
    if (timeZone !== undefined && (typeof timeZone !== 'string' || !TIME_ZONE_PATTERN.test(timeZone))) {
      throw new GatewayError('DATA_OUT_INVALID_INPUT', `granularity.timeZone ${JSON.stringify(timeZone).slice(0, 80)} is not a time zone name (such as UTC or Asia/Kolkata)`);
    }
    if (period === null) return null;
    if (timeZone === undefined || timeZone === 'UTC') return `time_floor("__time", ${this.bind(period)})`;
    // Buckets start at the zone's wall-clock boundaries: floor the local time, then read it back in the zone.
    const zone = this.bind(timeZone);
    return `((time_floor(("__time" AT TIME ZONE ${zone}) AT TIME ZONE 'UTC', ${this.bind(period)}) AT TIME ZONE 'UTC') AT TIME ZONE ${zone})`;
  }

  interval(intervals: unknown): string {
    const { start, end } = queryInterval(intervals);
    this.intervalStart = new Date(start).toISOString();
    return `"__time" >= ${this.bind(this.intervalStart)}::timestamptz AND "__time" < ${this.bind(new Date(end).toISOString())}::timestamptz`;
  }

  filter(filter: unknown, depth = 0): string {
    if (depth > 20) throw unsupported('filters nested deeper than 20 levels');
    if (!isObject(filter)) throw unsupported(`filter ${JSON.stringify(filter).slice(0, 60)}`);
    switch (filter.type) {
      case 'selector': {
        const column = this.column(filter.dimension, 'filter.dimension');
        return filter.value === null || filter.value === undefined ? `${column} IS NULL` : `${column}::text = ${this.bind(textOf(filter.value))}`;
      }
      case 'in': {
        if (!Array.isArray(filter.values)) throw new GatewayError('DATA_OUT_INVALID_INPUT', 'an "in" filter needs values');
        return `${this.column(filter.dimension, 'filter.dimension')}::text = ANY(${this.bind(filter.values.map(String))}::text[])`;
      }
      case 'bound': {
        const column = this.column(filter.dimension, 'filter.dimension');
        const numeric = filter.ordering === 'numeric';
        const cast = numeric ? '::double precision' : '::text';
        const parts: string[] = [];
        if (filter.lower !== undefined && filter.lower !== null)
          parts.push(`${column}${cast} ${filter.lowerStrict ? '>' : '>='} ${this.bind(numeric ? Number(filter.lower) : textOf(filter.lower))}${cast}`);
        if (filter.upper !== undefined && filter.upper !== null)
          parts.push(`${column}${cast} ${filter.upperStrict ? '<' : '<='} ${this.bind(numeric ? Number(filter.upper) : textOf(filter.upper))}${cast}`);
        return parts.length > 0 ? `(${parts.join(' AND ')})` : 'TRUE';
      }
      case 'and':
      case 'or': {
        if (!Array.isArray(filter.fields) || filter.fields.length === 0) throw new GatewayError('DATA_OUT_INVALID_INPUT', `an "${filter.type}" filter needs fields`);
        return `(${filter.fields.map((inner) => this.filter(inner, depth + 1)).join(filter.type === 'and' ? ' AND ' : ' OR ')})`;
      }
      case 'not':
        return `NOT (${this.filter(filter.field, depth + 1)})`;
      default:
        throw unsupported(`filter type ${JSON.stringify(filter.type)}`);
    }
  }

  aggregations(aggregations: unknown): { select: string[]; names: string[] } {
    if (aggregations === undefined) return { select: [], names: [] };
    if (!Array.isArray(aggregations)) throw new GatewayError('DATA_OUT_INVALID_INPUT', 'aggregations must be a list');
    const select: string[] = [];
    const names: string[] = [];
    for (const aggregation of aggregations) {
      if (!isObject(aggregation)) throw unsupported('an aggregation that is not an object');
      const name = this.outputName(aggregation.name, 'aggregation.name');
      names.push(aggregation.name as string);
      if (aggregation.type === 'count') select.push(`COUNT(*) AS ${name}`);
      else if (typeof aggregation.type === 'string' && aggregation.type in AGGREGATE_FUNCTIONS) {
        const cast = aggregation.type.startsWith('long') ? '::bigint' : '::double precision';
        select.push(`${AGGREGATE_FUNCTIONS[aggregation.type]}(${this.column(aggregation.fieldName, `aggregation ${aggregation.name as string}`)}${cast}) AS ${name}`);
      } else throw unsupported(`aggregator type ${JSON.stringify(aggregation.type)}`);
    }
    return { select, names };
  }

  dimensions(dimensions: unknown): { select: string[]; names: string[] } {
    if (dimensions === undefined) return { select: [], names: [] };
    if (!Array.isArray(dimensions)) throw new GatewayError('DATA_OUT_INVALID_INPUT', 'dimensions must be a list');
    const select: string[] = [];
    const names: string[] = [];
    for (const dimension of dimensions) {
      const spec: unknown = typeof dimension === 'string' ? { dimension, outputName: dimension } : dimension;
      if (!isObject(spec) || (spec.type !== undefined && spec.type !== 'default')) throw unsupported(`dimension spec ${JSON.stringify(dimension).slice(0, 60)}`);
      const output = (spec.outputName ?? spec.dimension) as string;
      select.push(`${this.column(spec.dimension, 'dimension')} AS ${this.outputName(output, 'dimension.outputName')}`);
      names.push(output);
    }
    return { select, names };
  }
}

function iso(value: unknown): string {
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}

function pick(row: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, row[name] ?? null]));
}

const SUPPORTED_KEYS: Record<string, string[]> = {
  timeseries: ['queryType', 'dataSource', 'intervals', 'granularity', 'filter', 'aggregations', 'descending', 'context', 'limit', 'threshold'],
  groupBy: ['queryType', 'dataSource', 'intervals', 'granularity', 'filter', 'aggregations', 'dimensions', 'limitSpec', 'context', 'limit', 'threshold'],
  topN: ['queryType', 'dataSource', 'intervals', 'granularity', 'filter', 'aggregations', 'dimension', 'metric', 'threshold', 'context', 'limit'],
  scan: ['queryType', 'dataSource', 'intervals', 'filter', 'columns', 'limit', 'order', 'resultFormat', 'context', 'threshold'],
  timeBoundary: ['queryType', 'dataSource', 'intervals', 'filter', 'bound', 'context', 'limit', 'threshold'],
};

/** Plans one native query against a datasource; `maxRows` caps what any query returns. */
export function planNativeQuery(query: Json, source: DatasourceShape, maxRows: number): SqlPlan {
  const type = query.queryType;
  if (typeof type !== 'string' || !(type in SUPPORTED_KEYS)) throw unsupported(`queryType ${JSON.stringify(type)}`);
  const extra = Object.keys(query).filter((key) => !SUPPORTED_KEYS[type]!.includes(key));
  if (extra.length > 0) throw unsupported(`${extra.join(', ')} in a ${type} query`);
  const b = new Builder(source);
  const where = [b.interval(query.intervals), ...(query.filter !== undefined && query.filter !== null ? [b.filter(query.filter)] : [])].join(' AND ');
  const from = `FROM ${source.relation} WHERE ${where}`;
  const limit = Math.min(maxRows, typeof query.limit === 'number' && query.limit > 0 ? Math.floor(query.limit) : maxRows);

  if (type === 'timeBoundary') {
    return {
      sql: `SELECT MIN("__time") AS "minTime", MAX("__time") AS "maxTime" ${from}`,
      params: b.params,
      shape: (rows) => {
        const row = rows[0];
        if (!row?.minTime) return [];
        const minTime = iso(row.minTime);
        const maxTime = iso(row.maxTime);
        // "bound" asks for one end only, as Druid answers it.
        if (query.bound === 'minTime') return [{ timestamp: minTime, result: { minTime } }];
        if (query.bound === 'maxTime') return [{ timestamp: maxTime, result: { maxTime } }];
        return [{ timestamp: minTime, result: { minTime, maxTime } }];
      },
    };
  }
  if (type === 'scan') {
    const columns = Array.isArray(query.columns) && query.columns.length > 0 ? (query.columns as unknown[]) : ['__time', ...source.columns];
    const select = columns.map((column) => `${b.column(column, 'columns')} AS ${quoteIdentifier(String(column))}`);
    const order = query.order === 'descending' ? 'DESC' : 'ASC';
    return {
      sql: `SELECT ${select.join(', ')} ${from} ORDER BY "__time" ${order} LIMIT ${b.bind(limit)}`,
      params: b.params,
      shape: (rows) => [{ segmentId: query.dataSource, columns: columns.map(String), events: rows.map((row) => ('__time' in row ? { ...row, __time: iso(row.__time) } : row)) }],
    };
  }

  // Granularity "all": one bucket, stamped with the start of the interval (as Druid does).
  const bucket = b.bucket(query.granularity);
  const timestamp = bucket ?? `${b.bind(b.intervalStart)}::timestamptz`;
  const aggregations = b.aggregations(query.aggregations);

  if (type === 'timeseries') {
    const order = query.descending === true ? 'DESC' : 'ASC';
    return {
      sql: `SELECT ${[`${timestamp} AS "timestamp"`, ...aggregations.select].join(', ')} ${from} GROUP BY 1 ORDER BY 1 ${order} LIMIT ${b.bind(limit)}`,
      params: b.params,
      shape: (rows) => rows.map((row) => ({ timestamp: iso(row.timestamp), result: pick(row, aggregations.names) })),
    };
  }

  if (type === 'groupBy') {
    const dimensions = b.dimensions(query.dimensions);
    const orderBy: string[] = [];
    let rowLimit = limit;
    if (isObject(query.limitSpec)) {
      const spec = query.limitSpec;
      if (typeof spec.limit === 'number') rowLimit = Math.min(limit, Math.floor(spec.limit));
      for (const column of Array.isArray(spec.columns) ? spec.columns : []) {
        const name = typeof column === 'string' ? column : isObject(column) ? column.dimension : undefined;
        if (typeof name !== 'string' || (!dimensions.names.includes(name) && !aggregations.names.includes(name))) {
          throw new GatewayError('DATA_OUT_INVALID_INPUT', `limitSpec orders by ${JSON.stringify(name)}, which is neither a dimension nor an aggregation`);
        }
        orderBy.push(`${quoteIdentifier(name)} ${isObject(column) && column.direction === 'descending' ? 'DESC' : 'ASC'}`);
      }
    }
    const groups = Array.from({ length: dimensions.select.length + 1 }, (_, i) => String(i + 1));
    // Without a limitSpec order, Druid sorts by time, then by the dimensions.
    const order = orderBy.length > 0 ? ['1', ...orderBy] : groups;
    return {
      sql: `SELECT ${[`${timestamp} AS "timestamp"`, ...dimensions.select, ...aggregations.select].join(', ')} ${from} GROUP BY ${groups.join(', ')} ORDER BY ${order.join(', ')} LIMIT ${b.bind(rowLimit)}`,
      params: b.params,
      shape: (rows) => rows.map((row) => ({ timestamp: iso(row.timestamp), result: pick(row, [...dimensions.names, ...aggregations.names]) })),
    };
  }

  // topN: the `threshold` best values of one dimension per time bucket, by one metric.
  const dimension = b.dimensions([query.dimension]);
  const metric = isObject(query.metric) ? query.metric.metric : query.metric;
  if (typeof metric !== 'string' || !aggregations.names.includes(metric)) {
    throw new GatewayError('DATA_OUT_INVALID_INPUT', `topN metric ${JSON.stringify(metric)} is not one of its aggregations`);
  }
  const threshold = Math.min(limit, typeof query.threshold === 'number' && query.threshold > 0 ? Math.floor(query.threshold) : 10);
  const inner = `SELECT ${[`${timestamp} AS "timestamp"`, ...dimension.select, ...aggregations.select].join(', ')} ${from} GROUP BY 1, 2`;
  return {
    sql: `SELECT * FROM (SELECT ranked.*, row_number() OVER (PARTITION BY "timestamp" ORDER BY ${quoteIdentifier(metric)} DESC) AS "__rank" FROM (${inner}) AS ranked) AS top
          WHERE "__rank" <= ${b.bind(threshold)} ORDER BY "timestamp", "__rank"`,
    params: b.params,
    shape: (rows) => {
      const buckets = new Map<string, Record<string, unknown>[]>();
      for (const row of rows) {
        const key = iso(row.timestamp);
        const list = buckets.get(key) ?? [];
        list.push(pick(row, [...dimension.names, ...aggregations.names]));
        buckets.set(key, list);
      }
      return [...buckets].map(([timestamp, result]) => ({ timestamp, result }));
    },
  };
}
