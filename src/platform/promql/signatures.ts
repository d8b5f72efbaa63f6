// The types PromQL's functions and aggregations take and give (Prometheus 2.x's function library).

export type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

export const TYPE_NAMES: Record<ValueType, string> = { scalar: 'scalar', vector: 'instant vector', matrix: 'range vector', string: 'string' };

/** Each aggregation's parameter type (null: it takes none). */
export const AGGREGATIONS: Record<string, ValueType | null> = {
  sum: null,
  min: null,
  max: null,
  avg: null,
  group: null,
  stddev: null,
  stdvar: null,
  count: null,
  count_values: 'string',
  topk: 'scalar',
  bottomk: 'scalar',
  quantile: 'scalar',
  limitk: 'scalar',
  limit_ratio: 'scalar',
};

export interface Signature {
  args: ValueType[];
  /** How many trailing arguments may be left out. */
  optional?: number;
  /** The last argument may repeat. */
  variadic?: boolean;
  returns: ValueType;
}

const v = 'vector' as const;
const m = 'matrix' as const;
const s = 'scalar' as const;
const str = 'string' as const;
const vectorOf = (...args: ValueType[]): Signature => ({ args, returns: v });

export const FUNCTIONS: Record<string, Signature> = {
  ...Object.fromEntries(
    [
      'abs',
      'ceil',
      'exp',
      'floor',
      'ln',
      'log2',
      'log10',
      'sgn',
      'sqrt',
      'sort',
      'sort_desc',
      'timestamp',
      'absent',
      'histogram_count',
      'histogram_sum',
      'histogram_avg',
      'histogram_stddev',
      'histogram_stdvar',
      'acos',
      'acosh',
      'asin',
      'asinh',
      'atan',
      'atanh',
      'cos',
      'cosh',
      'sin',
      'sinh',
      'tan',
      'tanh',
      'deg',
      'rad',
    ].map((name) => [name, vectorOf(v)]),
  ),
  ...Object.fromEntries(
    [
      'rate',
      'irate',
      'increase',
      'delta',
      'idelta',
      'deriv',
      'changes',
      'resets',
      'absent_over_time',
      'present_over_time',
      'avg_over_time',
      'min_over_time',
      'max_over_time',
      'sum_over_time',
      'count_over_time',
      'stddev_over_time',
      'stdvar_over_time',
      'last_over_time',
      'mad_over_time',
    ].map((name) => [name, vectorOf(m)]),
  ),
  ...Object.fromEntries(['day_of_month', 'day_of_week', 'day_of_year', 'days_in_month', 'hour', 'minute', 'month', 'year'].map((name) => [name, { args: [v], optional: 1, returns: v }])),
  clamp: vectorOf(v, s, s),
  clamp_max: vectorOf(v, s),
  clamp_min: vectorOf(v, s),
  round: { args: [v, s], optional: 1, returns: v },
  histogram_quantile: vectorOf(s, v),
  histogram_fraction: vectorOf(s, s, v),
  holt_winters: vectorOf(m, s, s),
  double_exponential_smoothing: vectorOf(m, s, s),
  predict_linear: vectorOf(m, s),
  quantile_over_time: vectorOf(s, m),
  label_replace: vectorOf(v, str, str, str, str),
  label_join: { args: [v, str, str, str], variadic: true, returns: v },
  sort_by_label: { args: [v, str], variadic: true, returns: v },
  sort_by_label_desc: { args: [v, str], variadic: true, returns: v },
  scalar: { args: [v], returns: s },
  vector: { args: [s], returns: v },
  time: { args: [], returns: s },
  pi: { args: [], returns: s },
};
