// Event times read field by field must mean exactly what Date.parse says of the same text.
import { describe, expect, it } from '@jest/globals';
import { parseTimestamp } from '../../src/validation/timestamp.js';

const SHAPES = [
  '2026-03-02T10:00:00Z',
  '2026-03-02T10:00:00.123Z',
  '2026-03-02T10:00:00.1Z',
  '2026-03-02T10:00:00.1234Z',
  '2026-03-02T10:00:00+05:30',
  '2026-03-02T10:00:00.999-23:59',
  '2026-03-02T10:00:00+24:00',
  '2026-03-02T10:00:00+0530',
  '2026-03-02T10:00:00',
  '2026-03-02T10:00Z',
  '2026-03-02',
  '2026-03-02 10:00:00Z',
  '2026-03-02t10:00:00z',
  '+002026-03-02T10:00:00Z',
  '2024-02-29T00:00:00Z',
  '2026-02-29T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-00-10T00:00:00Z',
  '2026-01-00T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T23:60:00Z',
  '2026-01-01T23:59:60Z',
  '1970-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '2026-0a-01T00:00:00Z',
  '2026-01-01T00:00:00.abcZ',
  '2026-01-01T00:00:00Zjunk',
  'Mon, 02 Mar 2026 10:00:00 GMT',
  'not a time',
  '',
];

describe('parseTimestamp', () => {
  it('agrees with Date.parse on every shape, the ones it reads and the ones it leaves to Date.parse', () => {
    for (const text of SHAPES) expect([text, parseTimestamp(text)]).toEqual([text, Date.parse(text)]);
  });

  it('agrees with Date.parse on 20,000 random times of the common shape, across offsets and leap days', () => {
    let seed = 42;
    const random = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    const pad = (value: number, width: number) => String(value).padStart(width, '0');
    for (let index = 0; index < 20_000; index++) {
      const base = `${pad(1900 + random(250), 4)}-${pad(1 + random(12), 2)}-${pad(1 + random(31), 2)}T${pad(random(25), 2)}:${pad(random(61), 2)}:${pad(random(61), 2)}`;
      const fraction = ['', `.${pad(random(1000), 3)}`][random(2)]!;
      const zone = ['Z', `+${pad(random(25), 2)}:${pad(random(61), 2)}`, `-${pad(random(24), 2)}:${pad(random(60), 2)}`][random(3)]!;
      const text = base + fraction + zone;
      expect([text, parseTimestamp(text)]).toEqual([text, Date.parse(text)]);
    }
  });
});
