// A range query's answer as Prometheus's JSON, written as bytes series by series: each step's
// `[<time>,"` is made once for all the series that have a value there, and nothing is built per
// point but its value's text, and that only when it differs from the point before (a 24-hour
// dashboard answers hundreds of thousands of points: an array and a string per point cost more
// than evaluating them). A series may come with the text of its first points already written
// (kept with a range's answer for the next refresh, see RangeResultCache): those are copied.
import { formatValue, type RangeSeries } from '../promql/evaluator.js';
import { JsonBytes } from '../json/written-json.js';

/** The text of a series' first `ends.length` points, `[t,"v"]` joined by commas; point i's ends at ends[i]. */
export interface PointsText {
  bytes: Buffer;
  ends: Int32Array;
}

export interface AnsweredSeries extends RangeSeries {
  text?: PointsText;
}

/** `,[<time>,"` of each step from `start` (a series' first point skips the comma), made once for every series. */
export class StepOpenings {
  private readonly made: Buffer[] = [];

  constructor(
    private readonly start: number,
    private readonly step: number,
  ) {}

  at(t: number): Buffer {
    const index = Math.round((t - this.start) / this.step);
    return (this.made[index] ??= Buffer.from(`,[${JSON.stringify(t / 1000)},"`));
  }
}

/** Points [from, to) of a series, each but the first after a comma unless `comma` says so. */
function writePoints(out: JsonBytes, openings: StepOpenings, times: readonly number[], values: readonly number[], from: number, to: number, comma: boolean, ends?: Int32Array): void {
  // A value like the one before is written again from the bytes written for it (charts are full
  // of flat lines: zeros, steady rates): making a number's text costs more than anything else.
  let previous = NaN;
  let textFrom = -1;
  let textTo = -1;
  for (let i = from; i < to; i += 1) {
    out.raw(openings.at(times[i]!), i === from && !comma ? 1 : 0);
    const value = values[i]!;
    if (textFrom >= 0 && Object.is(value, previous)) {
      out.again(textFrom, textTo);
    } else {
      previous = value;
      textFrom = out.written;
      out.ascii(formatValue(value));
      out.ascii('"]');
      textTo = out.written;
    }
    if (ends) ends[i - from] = out.written;
  }
}

/** The text of points [from, to) of `series` (its times steps of `openings`). */
export function pointsText(series: RangeSeries, from: number, to: number, openings: StepOpenings): PointsText {
  const out = new JsonBytes(64 + (to - from) * 30);
  const ends = new Int32Array(to - from);
  writePoints(out, openings, series.times, series.values, from, to, false, ends);
  return { bytes: out.done(), ends };
}

/** Prometheus's success body for a matrix: the series in order, their points from `start` every `step`. */
export function writeMatrix(out: JsonBytes, result: readonly AnsweredSeries[], start: number, step: number): void {
  const openings = new StepOpenings(start, step);
  out.ascii('{"status":"success","data":{"resultType":"matrix","result":[');
  for (let s = 0; s < result.length; s += 1) {
    const { labels, times, values, text } = result[s]!;
    out.ascii(s === 0 ? '{"metric":' : ',{"metric":');
    out.utf8(JSON.stringify(labels));
    out.ascii(',"values":[');
    const written = text ? text.ends.length : 0;
    if (written > 0) out.raw(text!.bytes, 0, text!.ends[written - 1]);
    writePoints(out, openings, times, values, written, times.length, written > 0);
    out.ascii(']}');
  }
  out.ascii(']}}');
}

/** About how many bytes the answer takes: ~30 a point (`,[1764201600,"12.5"]`), a few hundred a series' labels. */
export function expectedMatrixBytes(result: readonly RangeSeries[]): number {
  return 128 + result.reduce((total, series) => total + 256 + series.times.length * 30, 0);
}
