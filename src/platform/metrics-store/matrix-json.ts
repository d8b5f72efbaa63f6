// A range query's answer as Prometheus's JSON, written as bytes series by series: each step's
// `,[<time>,"` is made once for all the series, and nothing is built per point: its opening is
// copied, its value's digits written in place (shortest-decimal.ts), or copied when it is the value
// of the point before (a 24-hour dashboard answers hundreds of thousands of points: no array or
// string is made for each). A series may come with the text of its first
// points already written (kept with a range's answer for the next refresh, see RangeResultCache):
// those are copied.
import { formatValue } from '../json/prometheus-value.js';
import type { RangeSeries } from '../promql/evaluator.js';
import { JsonBytes } from '../json/written-json.js';
import { MAX_DECIMAL_BYTES, writeShortestDecimal } from '../json/shortest-decimal.js';

const QUOTE = 0x22;
const CLOSE_BRACKET = 0x5d;

/** The text of a series' first `ends.length` points, `[t,"v"]` joined by commas; point i's ends at ends[i]. */
export interface PointsText {
  bytes: Buffer;
  ends: Int32Array;
}

export interface AnsweredSeries extends RangeSeries {
  /** The text of its first points, written for an earlier answer: copied, not written again. */
  text?: PointsText;
  /** How many of its first points the answer's writer is to hand back the text of (writeMatrix), kept for the next refresh. */
  keepPoints?: number;
}

/** `,[<time>,"` of each step from `start` (a series' first point skips the comma), made once for every series, side by side in one buffer. */
class StepOpenings {
  readonly bytes: Buffer;
  /** Step i's opening is bytes [starts[i], starts[i + 1]), for the time times[i]. */
  readonly starts: Int32Array;
  readonly times: Float64Array;
  readonly longest: number;

  constructor(
    readonly start: number,
    readonly step: number,
    count: number,
  ) {
    const texts: string[] = [];
    this.starts = new Int32Array(count + 1);
    this.times = new Float64Array(count);
    let longest = 0;
    // The steps' times made as the evaluator makes them (adding the step), and checked as each point is written.
    for (let i = 0, t = start; i < count; i += 1, t += step) {
      const text = openingOf(t);
      texts.push(text);
      this.times[i] = t;
      this.starts[i + 1] = this.starts[i]! + text.length;
      longest = Math.max(longest, text.length);
    }
    // Padded: the last opening is copied a word at a time too (writePoints).
    const joined = texts.join('');
    this.bytes = Buffer.alloc(joined.length + WORD);
    this.bytes.write(joined, 0, 'latin1');
    this.longest = longest;
  }

  /** The openings for the steps of `series` (times from `start`, every `step`). */
  static covering(series: readonly RangeSeries[], start: number, step: number): StepOpenings {
    const last = series.reduce((latest, one) => Math.max(latest, one.times[one.times.length - 1] ?? start), start);
    return new StepOpenings(start, step, Math.round((last - start) / step) + 1);
  }
}

/** A point's text before its value: `,[<time in seconds>,"`. */
function openingOf(t: number): string {
  return `,[${JSON.stringify(t / 1000)},"`;
}

/** Points written between two checks that the buffer has room (for each: its opening and a value of up to MAX_DECIMAL_BYTES). */
const POINTS_PER_ROOM = 256;

/**
 * Bytes copied at once. A piece is copied in whole words, up to WORD - 1 bytes past its end (the
 * next piece writes over them): a loop with no remainder to finish byte by byte.
 */
const WORD = 4;

/** Points [from, to) of a series, each but the first after a comma unless `comma` says so; with `ends`, point i's text ends `ends[i]` bytes after `origin`. */
function writePoints(out: JsonBytes, openings: StepOpenings, times: Float64Array, values: Float64Array, from: number, to: number, comma: boolean, ends?: Int32Array, origin = 0): void {
  // One loop copying bytes, no call per point but a value's digits: ~40 bytes a point, 300,000
  // points in a 24-hour dashboard. A value like the one before is copied from the bytes written for
  // it (charts are full of flat lines: zeros, steady rates).
  const { bytes: opening, starts, start, step, times: openingTimes } = openings;
  const openingView = new DataView(opening.buffer, opening.byteOffset, opening.length);
  // Each piece (opening, value) may be copied up to a word past its end.
  const pointBytes = openings.longest + MAX_DECIMAL_BYTES + 2 + 2 * WORD;
  let previous = NaN;
  let textFrom = -1;
  let textTo = -1;
  // The step of the point before: the next point is usually at the next one (no division to find it).
  let index = -1;
  let i = from;
  while (i < to) {
    const roomFor = Math.min(to, i + POINTS_PER_ROOM);
    let buffer = out.room((roomFor - i) * pointBytes);
    let view = new DataView(buffer.buffer, buffer.byteOffset, buffer.length);
    let at = out.written;
    for (; i < roomFor; i += 1) {
      const t = times[i]!;
      index = openingTimes[index + 1] === t ? index + 1 : Math.round((t - start) / step);
      if (openingTimes[index] === t) {
        const begin = starts[index]! + (i === from && !comma ? 1 : 0);
        const length = starts[index + 1]! - begin;
        for (let b = 0; b < length; b += WORD) view.setUint32(at + b, openingView.getUint32(begin + b));
        at += length;
      } else {
        // A time off the steps made (a fractional step's sums met another way): its own opening.
        out.wroteTo(at);
        out.ascii(openingOf(t).slice(i === from && !comma ? 1 : 0));
        buffer = out.room((roomFor - i) * pointBytes);
        view = new DataView(buffer.buffer, buffer.byteOffset, buffer.length);
        at = out.written;
      }
      const value = values[i]!;
      if (textFrom >= 0 && Object.is(value, previous)) {
        // Read words end before `at` (an opening of 4 bytes or more lies between), so none is one this copy wrote.
        const length = textTo - textFrom;
        for (let c = 0; c < length; c += WORD) view.setUint32(at + c, view.getUint32(textFrom + c));
        at += length;
      } else {
        previous = value;
        textFrom = at;
        const end = writeShortestDecimal(buffer, at, value);
        if (end >= 0) {
          at = end;
        } else {
          // NaN, ±Inf, -0, and magnitudes String() writes better: their text, then room for the rest.
          out.wroteTo(at);
          out.ascii(formatValue(value));
          buffer = out.room((roomFor - i) * pointBytes);
          view = new DataView(buffer.buffer, buffer.byteOffset, buffer.length);
          at = out.written;
        }
        buffer[at++] = QUOTE;
        buffer[at++] = CLOSE_BRACKET;
        textTo = at;
      }
      if (ends) ends[i] = at - origin;
    }
    out.wroteTo(at);
  }
}

/**
 * Prometheus's success body for a matrix: the series in order, their points from `start` every
 * `step`. Returns, to be called with the answer's bytes once all are written, the text of each
 * series' first `keepPoints` points: slices of the answer, not copies.
 */
export function writeMatrix(out: JsonBytes, result: readonly AnsweredSeries[], start: number, step: number): (answer: Buffer) => (PointsText | undefined)[] {
  const openings = StepOpenings.covering(result, start, step);
  const marks: ({ from: number; ends: Int32Array } | undefined)[] = [];
  out.ascii('{"status":"success","data":{"resultType":"matrix","result":[');
  for (let s = 0; s < result.length; s += 1) {
    const { labels, times, values, text, keepPoints = 0 } = result[s]!;
    out.ascii(s === 0 ? '{"metric":' : ',{"metric":');
    out.utf8(JSON.stringify(labels));
    out.ascii(',"values":[');
    const from = out.written;
    const written = text ? text.ends.length : 0;
    if (written > 0) out.raw(text!.bytes, 0, text!.ends[written - 1]);
    const keep = Math.min(keepPoints, times.length);
    const ends = keep > 0 ? new Int32Array(keep) : undefined;
    if (ends && written > 0) ends.set(text!.ends.subarray(0, Math.min(written, keep)));
    // The points to keep the text of (those not copied), then the rest.
    const marked = Math.max(written, keep);
    writePoints(out, openings, times, values, written, marked, written > 0, ends, from);
    writePoints(out, openings, times, values, marked, times.length, marked > 0);
    marks.push(ends && { from, ends });
    out.ascii(']}');
  }
  out.ascii(']}}');
  return (answer) => marks.map((mark) => mark && { bytes: answer.subarray(mark.from, mark.from + mark.ends[mark.ends.length - 1]!), ends: mark.ends });
}

/** About how many bytes the answer takes: up to ~40 a point (`,[1764201600.5,"12.345678901234567"]`), a few hundred a series' labels. */
export function expectedMatrixBytes(result: readonly RangeSeries[]): number {
  return 128 + result.reduce((total, series) => total + 256 + series.times.length * 40, 0);
}
