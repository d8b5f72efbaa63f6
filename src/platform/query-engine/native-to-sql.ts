// Druid native queries (timeseries, groupBy, topN, scan, timeBoundary) translated to one
// parameterised SQL statement over a datasource view, and the rows shaped back into Druid's
// result format. Every value from the query is a bound parameter; every name is checked against
// the datasource's columns. Anything unsupported is refused, naming the construct.
import { GatewayError } from '../../errors.js';
import { castToOutputType, compileExpression, type CompiledExpression, type ExpressionType } from './druid-expression.js';
import { quoteIdentifier } from './names.js';
import { isObject, textOf } from '../../validation/json-object.js';

type Json = Record<string, unknown>;

export interface DatasourceShape {
  /** Schema-qualified, quoted relation name. */
  relation: string;
  /** Column names (as users write them, e.g. `device.os`). */
  columns: ReadonlySet<string>;
  /** Druid types of the columns the engine knows them for (expressions divide LONGs as whole numbers). */
  columnTypes?: ReadonlyMap<string, 'long' | 'double' | 'string'>;
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

/** Most virtual columns or post-aggregations one query may declare. */
const MAX_DECLARED = 50;
/** The relation a query with post-aggregations reads its aggregated rows from. */
const AGGREGATED = 'agg';

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
  /** The query's virtual columns by name: a row expression each. */
  private readonly virtual = new Map<string, CompiledExpression>();
  constructor(private readonly source: DatasourceShape) {}

  bind(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  column(name: unknown, where: string): string {
    const virtual = typeof name === 'string' ? this.virtual.get(name) : undefined;
    if (virtual) return `(${virtual.sql})`;
    if (name === '__time') return '"__time"';
    if (typeof name !== 'string' || !this.source.columns.has(name)) {
      throw new GatewayError('DATA_OUT_INVALID_INPUT', `${where}: ${JSON.stringify(name)} is not a column of the datasource`);
    }
    return quoteIdentifier(name);
  }

  /** A column an aggregator reads: Druid's __time is milliseconds since the epoch there (longMax of __time is the latest event's time). */
  aggregatedColumn(name: unknown, where: string): string {
    return name === '__time' && !this.virtual.has(name) ? `(EXTRACT(EPOCH FROM "__time") * 1000)` : this.column(name, where);
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

  /**
   * Druid's `virtualColumns`: expression columns computed per row, usable wherever a column is
   * (dimensions, filters, aggregations' fieldName), each seeing the ones declared before it.
   */
  virtualColumns(specs: unknown): void {
    if (specs === undefined || specs === null) return;
    if (!Array.isArray(specs)) throw new GatewayError('DATA_OUT_INVALID_INPUT', 'virtualColumns must be a list');
    if (specs.length > MAX_DECLARED) throw new GatewayError('DATA_OUT_INVALID_INPUT', `a query may declare at most ${MAX_DECLARED} virtualColumns`);
    specs.forEach((spec: unknown, i) => {
      const where = `virtualColumns[${i}]`;
      if (!isObject(spec)) throw new GatewayError('DATA_OUT_INVALID_INPUT', `${where} must be an object`);
      if (spec.type !== 'expression') throw unsupported(`virtual column type ${JSON.stringify(spec.type)} (${where}); only "expression" is`);
      this.outputName(spec.name, `${where}.name`);
      const name = spec.name as string;
      const scope = {
        bind: (value: unknown) => this.bind(value),
        resolve: (column: string): CompiledExpression | undefined => {
          const earlier = this.virtual.get(column);
          if (earlier) return earlier;
          // Druid's __time is milliseconds since the epoch.
          if (column === '__time') return { sql: `(EXTRACT(EPOCH FROM "__time") * 1000)::bigint`, type: 'long' };
          if (!this.source.columns.has(column)) return undefined;
          return { sql: quoteIdentifier(column), type: this.source.columnTypes?.get(column) ?? 'unknown' };
        },
      };
      const named = `${where} ${name}`;
      this.virtual.set(name, castToOutputType(compileExpression(spec.expression, scope, named), spec.outputType, named));
    });
  }

  aggregations(aggregations: unknown): { select: string[]; names: string[]; types: ExpressionType[] } {
    if (aggregations === undefined) return { select: [], names: [], types: [] };
    if (!Array.isArray(aggregations)) throw new GatewayError('DATA_OUT_INVALID_INPUT', 'aggregations must be a list');
    const select: string[] = [];
    const names: string[] = [];
    const types: ExpressionType[] = [];
    for (const aggregation of aggregations) {
      if (!isObject(aggregation)) throw unsupported('an aggregation that is not an object');
      const name = this.outputName(aggregation.name, 'aggregation.name');
      names.push(aggregation.name as string);
      if (aggregation.type === 'count') {
        select.push(`COUNT(*) AS ${name}`);
        types.push('long');
      } else if (typeof aggregation.type === 'string' && aggregation.type in AGGREGATE_FUNCTIONS) {
        const long = aggregation.type.startsWith('long');
        select.push(
          `${AGGREGATE_FUNCTIONS[aggregation.type]}(${this.aggregatedColumn(aggregation.fieldName, `aggregation ${aggregation.name as string}`)}${long ? '::bigint' : '::double precision'}) AS ${name}`,
        );
        types.push(long ? 'long' : 'double');
      } else throw unsupported(`aggregator type ${JSON.stringify(aggregation.type)}`);
    }
    return { select, names, types };
  }

  /**
   * Druid's `postAggregations`, computed over one aggregated row (the relation AGGREGATED): each may
   * name the aggregations, the dimensions and the post-aggregations before it.
   */
  postAggregations(specs: unknown, inputs: { names: string[]; types: ExpressionType[] }): { select: string[]; names: string[] } {
    if (specs === undefined || specs === null) return { select: [], names: [] };
    if (!Array.isArray(specs)) throw new GatewayError('DATA_OUT_INVALID_INPUT', 'postAggregations must be a list');
    if (specs.length > MAX_DECLARED) throw new GatewayError('DATA_OUT_INVALID_INPUT', `a query may declare at most ${MAX_DECLARED} postAggregations`);
    const known = new Map<string, CompiledExpression>();
    inputs.names.forEach((name, i) => {
      const type = inputs.types[i]!;
      // A LONG sum comes back from SUM(bigint) as numeric: read it as the bigint Druid holds.
      known.set(name, { sql: `${AGGREGATED}.${quoteIdentifier(name)}${type === 'long' ? '::bigint' : ''}`, type });
    });
    const scope = { bind: (value: unknown) => this.bind(value), resolve: (name: string) => known.get(name) };
    const select: string[] = [];
    const names: string[] = [];
    specs.forEach((spec: unknown, i) => {
      const where = `postAggregations[${i}]`;
      const compiled = this.postAggregation(spec, scope, where, 0);
      const name = (spec as Json).name;
      select.push(`${compiled.sql} AS ${this.outputName(name, `${where}.name`)}`);
      names.push(name as string);
      known.set(name as string, compiled);
    });
    return { select, names };
  }

  private postAggregation(spec: unknown, scope: { bind(value: unknown): string; resolve(name: string): CompiledExpression | undefined }, where: string, depth: number): CompiledExpression {
    if (depth > 20) throw unsupported(`post-aggregators nested deeper than 20 levels (${where})`);
    if (!isObject(spec)) throw new GatewayError('DATA_OUT_INVALID_INPUT', `${where} must be an object`);
    switch (spec.type) {
      case 'expression':
        return castToOutputType(compileExpression(spec.expression, scope, where), spec.outputType, where);
      case 'fieldAccess':
      case 'finalizingFieldAccess': {
        const found = typeof spec.fieldName === 'string' ? scope.resolve(spec.fieldName) : undefined;
        if (!found) throw new GatewayError('DATA_OUT_INVALID_INPUT', `${where}: fieldName ${JSON.stringify(spec.fieldName)} is not an aggregation or post-aggregation before it`);
        return found;
      }
      case 'constant': {
        const value = spec.value;
        if (typeof value !== 'number' || !Number.isFinite(value)) throw new GatewayError('DATA_OUT_INVALID_INPUT', `${where}: a constant's value must be a number`);
        return Number.isInteger(value) ? { sql: `${scope.bind(value)}::bigint`, type: 'long' } : { sql: `${scope.bind(value)}::double precision`, type: 'double' };
      }
      case 'arithmetic': {
        const fn = spec.fn;
        if (typeof fn !== 'string' || !['+', '-', '*', '/', 'quotient', 'pow'].includes(fn)) throw unsupported(`arithmetic fn ${JSON.stringify(fn)} (${where})`);
        if (!Array.isArray(spec.fields) || spec.fields.length < 2) throw new GatewayError('DATA_OUT_INVALID_INPUT', `${where}: an arithmetic post-aggregator needs at least two fields`);
        const fields = spec.fields.map((field: unknown, j) => this.postAggregation(field, scope, `${where}.fields[${j}]`, depth + 1));
        // Druid computes arithmetic post-aggregators in floating point; "/" gives 0 for a zero divisor, "quotient" divides plainly.
        const double = fields.map((field) => `(${field.sql})::double precision`);
        const sql = double.reduce((left, right) => {
          if (fn === '/') return `COALESCE(${left} / NULLIF(${right}, 0), 0)`;
          if (fn === 'quotient') return `(${left} / NULLIF(${right}, 0))`;
          if (fn === 'pow') return `power(${left}, ${right})`;
          return `(${left} ${fn} ${right})`;
        });
        return { sql, type: 'double' };
      }
      default:
        throw unsupported(`post-aggregator type ${JSON.stringify(spec.type)} (${where}); expression, arithmetic, fieldAccess, finalizingFieldAccess and constant are`);
    }
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

/** The aggregated rows of `core` with each post-aggregation computed over them (`core` itself when there are none). */
function withPostAggregations(core: string, posts: { select: string[] }): string {
  return posts.select.length === 0 ? core : `SELECT ${AGGREGATED}.*, ${posts.select.join(', ')} FROM (${core}) AS ${AGGREGATED}`;
}

const SUPPORTED_KEYS: Record<string, string[]> = {
  timeseries: ['queryType', 'dataSource', 'intervals', 'granularity', 'filter', 'aggregations', 'postAggregations', 'virtualColumns', 'descending', 'context', 'limit', 'threshold'],
  groupBy: ['queryType', 'dataSource', 'intervals', 'granularity', 'filter', 'aggregations', 'postAggregations', 'virtualColumns', 'dimensions', 'limitSpec', 'context', 'limit', 'threshold'],
  topN: ['queryType', 'dataSource', 'intervals', 'granularity', 'filter', 'aggregations', 'postAggregations', 'virtualColumns', 'dimension', 'metric', 'threshold', 'context', 'limit'],
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
  const interval = b.interval(query.intervals);
  b.virtualColumns(query.virtualColumns);
  const where = [interval, ...(query.filter !== undefined && query.filter !== null ? [b.filter(query.filter)] : [])].join(' AND ');
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
    const posts = b.postAggregations(query.postAggregations, aggregations);
    const core = `SELECT ${[`${timestamp} AS "timestamp"`, ...aggregations.select].join(', ')} ${from} GROUP BY 1`;
    return {
      sql: `${withPostAggregations(core, posts)} ORDER BY 1 ${order} LIMIT ${b.bind(limit)}`,
      params: b.params,
      shape: (rows) => rows.map((row) => ({ timestamp: iso(row.timestamp), result: pick(row, [...aggregations.names, ...posts.names]) })),
    };
  }

  if (type === 'groupBy') {
    const dimensions = b.dimensions(query.dimensions);
    const posts = b.postAggregations(query.postAggregations, {
      names: [...dimensions.names, ...aggregations.names],
      types: [...dimensions.names.map((): ExpressionType => 'unknown'), ...aggregations.types],
    });
    const orderBy: string[] = [];
    let rowLimit = limit;
    if (isObject(query.limitSpec)) {
      const spec = query.limitSpec;
      if (typeof spec.limit === 'number') rowLimit = Math.min(limit, Math.floor(spec.limit));
      for (const column of Array.isArray(spec.columns) ? spec.columns : []) {
        const name = typeof column === 'string' ? column : isObject(column) ? column.dimension : undefined;
        if (typeof name !== 'string' || ![...dimensions.names, ...aggregations.names, ...posts.names].includes(name)) {
          throw new GatewayError('DATA_OUT_INVALID_INPUT', `limitSpec orders by ${JSON.stringify(name)}, which is not a dimension, an aggregation or a post-aggregation`);
        }
        orderBy.push(`${quoteIdentifier(name)} ${isObject(column) && column.direction === 'descending' ? 'DESC' : 'ASC'}`);
      }
    }
    const groups = Array.from({ length: dimensions.select.length + 1 }, (_, i) => String(i + 1));
    // Without a limitSpec order, Druid sorts by time, then by the dimensions.
    const order = orderBy.length > 0 ? ['1', ...orderBy] : groups;
    const core = `SELECT ${[`${timestamp} AS "timestamp"`, ...dimensions.select, ...aggregations.select].join(', ')} ${from} GROUP BY ${groups.join(', ')}`;
    return {
      sql: `${withPostAggregations(core, posts)} ORDER BY ${order.join(', ')} LIMIT ${b.bind(rowLimit)}`,
      params: b.params,
      shape: (rows) => rows.map((row) => ({ timestamp: iso(row.timestamp), result: pick(row, [...dimensions.names, ...aggregations.names, ...posts.names]) })),
    };
  }

  // topN: the `threshold` best values of one dimension per time bucket, by one metric.
  const dimension = b.dimensions([query.dimension]);
  const posts = b.postAggregations(query.postAggregations, { names: [...dimension.names, ...aggregations.names], types: ['unknown', ...aggregations.types] });
  const metric = isObject(query.metric) ? query.metric.metric : query.metric;
  if (typeof metric !== 'string' || (!aggregations.names.includes(metric) && !posts.names.includes(metric))) {
    throw new GatewayError('DATA_OUT_INVALID_INPUT', `topN metric ${JSON.stringify(metric)} is not one of its aggregations or post-aggregations`);
  }
  const threshold = Math.min(limit, typeof query.threshold === 'number' && query.threshold > 0 ? Math.floor(query.threshold) : 10);
  const inner = withPostAggregations(`SELECT ${[`${timestamp} AS "timestamp"`, ...dimension.select, ...aggregations.select].join(', ')} ${from} GROUP BY 1, 2`, posts);
  return {
    sql: `SELECT * FROM (SELECT ranked.*, row_number() OVER (PARTITION BY "timestamp" ORDER BY ${quoteIdentifier(metric)} DESC) AS "__rank" FROM (${inner}) AS ranked) AS top
          WHERE "__rank" <= ${b.bind(threshold)} ORDER BY "timestamp", "__rank"`,
    params: b.params,
    shape: (rows) => {
      const buckets = new Map<string, Record<string, unknown>[]>();
      for (const row of rows) {
        const key = iso(row.timestamp);
        const list = buckets.get(key) ?? [];
        list.push(pick(row, [...dimension.names, ...aggregations.names, ...posts.names]));
        buckets.set(key, list);
      }
      return [...buckets].map(([timestamp, result]) => ({ timestamp, result }));
    },
  };
}
