// The PromQL check behind metric aliases: a table of expressions it must accept and refuse, and,
// when Debian's prometheus package is installed, the same table checked against Prometheus' own
// parser (`promtool check rules`), so the two cannot drift apart unnoticed.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { checkMetricExpression } from '../../src/modules/alerts/metric-expression.js';
import { parsePromQL } from '../../src/platform/promql/parser.js';
import { findBinary } from '../support/alerting.js';
import { describeWhenInstalled } from '../support/skip.js';

// Expressions Prometheus parses. Those marked `range` or `string` parse but cannot be an alert's metric.
const VALID: [string, ('range' | 'string')?][] = [
  ['up'],
  ['sum(rate(http_requests_total{job="api"}[5m])) by (code)'],
  ['sum by (job) (rate(x[5m])) > 0.5'],
  ['histogram_quantile(0.99, sum by (le) (rate(h_bucket[5m])))'],
  ['rate(x[5m] offset 1h)'],
  ['x offset -5m'],
  ['x @ 1609746000'],
  ['x @ start() offset 1m'],
  ['max_over_time(rate(x[1m])[30m:1m])'],
  ['a / on(instance) group_left(job) b'],
  ['x > on() group_right() y'],
  ['1 + 2'],
  ['1 > bool 2'],
  ['x == bool 1'],
  ['-x'],
  ['x ^ 2 ^ 3'],
  ['topk(5, x)'],
  ['topk by (a) (1, x)'],
  ['count_values("v", x)'],
  ['quantile(0.9, x)'],
  ['label_replace(up, "a", "$1", "b", "(.*)")'],
  ['time() - x'],
  ['absent(up{job="x"})'],
  ['sum(sum_over_time(flink_taskmanager_job_task_operator_ExtractorJob_dataset_id_extractor_failed_count[5m]))'],
  ['x and y'],
  ['x unless on(a) y'],
  ['(x > 1) or vector(0)'],
  ['round(x)'],
  ['round(x, 0.5)'],
  ['clamp(x, 0, 1)'],
  ['predict_linear(x[1h], 3600)'],
  ['day_of_week()'],
  ['scalar(x) * 2'],
  ['{__name__="up"}'],
  ['x{a=~".+",}'],
  ['x{a=""}'],
  ['avg(x) by ()'],
  ['rate(x[1h30m])'],
  ['1e3'],
  ['0x1F'],
  ['-Inf'],
  ['nan'],
  ['x[5m]', 'range'],
  ['x[5m:]', 'range'],
  ['rate(x[5m])[10m:]', 'range'],
  ['"str"', 'string'],
];

const INVALID: [string, RegExp][] = [
  ['rate(x)', /expected type range vector in call to function "rate", got instant vector/],
  ['sum(', /unexpected end of expression/],
  ['x{a=}', /expected a quoted label value/],
  ['foo(x)', /unknown function "foo"/],
  ['1 > 2', /comparisons between scalars must use BOOL modifier/],
  ['x and 1', /set operator "and" not allowed in binary scalar expression/],
  ['{a=~".*"}', /at least one non-empty matcher/],
  ['{}', /at least one non-empty matcher/],
  ['rate(x[5m)', /expected "\]" to close the range/],
  ['sum by (a) (x) by (b)', /already has a by\/without clause/],
  ['topk(x)', /expected type scalar in aggregation parameter of topk/],
  ['(x)[5m]', /ranges only allowed for vector selectors/],
  ['x[5m] + 1', /binary expression must contain only scalar and instant vector types/],
  ['x + on(a) 1', /vector matching only allowed between instant vectors/],
  ['x and group_left y', /no grouping allowed for "and" operation/],
  ['x or on(a) group_left(b) y', /no grouping allowed for "or" operation/],
  ['clamp(x, 1)', /function "clamp" takes 3 arguments, got 2/],
  ['x offset', /expected a duration/],
  ['x{a!~"("}', /invalid regular expression/],
  ['metric with space', /unexpected identifier "with"/],
  ['rate(x[5])', /expected a duration/],
  ['x > bool y + 1 >', /unexpected end of expression/],
  ['scalar(x[5m])', /expected type instant vector in call to function "scalar", got range vector/],
  ['label_replace(up, 1, "a", "b", "c")', /expected type string in call to function "label_replace", got scalar/],
  ['x group_left y', /unexpected identifier "group_left"/],
  ['-"a"', /unary expression only allowed on expressions of type scalar or instant vector/],
];

describe('checkMetricExpression', () => {
  it.each(VALID.filter(([, kind]) => kind === undefined))('accepts %s', (expression) => {
    expect(checkMetricExpression(expression)).toBeUndefined();
  });

  it.each(VALID.filter(([, kind]) => kind !== undefined))('refuses %s, which parses but is not an instant vector or a scalar', (expression, kind) => {
    expect(checkMetricExpression(expression)).toMatch(kind === 'range' ? /not a range vector/ : /not a string/);
  });

  it.each(INVALID)('refuses %s, saying what is wrong and where', (expression, message) => {
    const problem = checkMetricExpression(expression);
    expect(problem).toMatch(message);
    expect(problem).toMatch(/\(at character \d+\)$/);
  });

  it('refuses an empty or blank expression', () => {
    expect(checkMetricExpression('')).toBe('the metric expression is empty');
    expect(checkMetricExpression('   ')).toBe('the metric expression is empty');
  });
});

// promtool checks rule files offline with Prometheus' own parser; it does not check a rule's
// result type, so the comparison is on parsing (parsePromQL), not on the alias rule above it.
const promtool = findBinary('promtool');
const maybe = describeWhenInstalled(promtool, 'prometheus');

maybe(`parsePromQL against Prometheus' parser (promtool ${promtool ? 'found' : 'not installed: apt-get install -y prometheus'})`, () => {
  it('agrees with promtool on every expression of the table', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'promql-'));
    try {
      const expressions = [...VALID.map(([expression]) => expression), ...INVALID.map(([expression]) => expression)];
      const verdicts = await Promise.all(
        expressions.map(async (expression, index) => {
          const file = path.join(dir, `rule-${index}.yml`);
          await writeFile(file, `groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: ${JSON.stringify(expression)}\n`);
          const promtoolAccepts = await promisify(execFile)(promtool!, ['check', 'rules', file]).then(
            () => true,
            () => false,
          );
          return { expression, promtoolAccepts, weAccept: parsePromQL(expression).problem === undefined };
        }),
      );
      expect(verdicts.filter((verdict) => verdict.promtoolAccepts !== verdict.weAccept)).toEqual([]);
      // The table really holds both kinds (a test of nothing would agree too).
      expect(verdicts.filter((verdict) => verdict.promtoolAccepts).length).toBe(VALID.length);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
