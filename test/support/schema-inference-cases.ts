// One table of schema-inference rules, run against the pure algorithm (test/modules) and over both
// transports (test/rest, test/graphql), so every rule is checked the same way everywhere.

/** A property's place: keys, with `[*]` for array items. */
export type At = string[];

export interface DetectionCase {
  name: string;
  samples: Record<string, unknown>[];
  at: At;
  expected: { type: string; arrival_format: string; data_type: string };
}

export interface SuggestionCase {
  name: string;
  samples: Record<string, unknown>[];
  at: At;
  expected: { severity: string; resolutionType?: string; message: RegExp; advice?: RegExp };
}

const each = <T>(values: T[], key = 'v') => values.map((value) => ({ [key]: value }));

const text = { type: 'string', arrival_format: 'text' };
const number = { arrival_format: 'number' };

export const DETECTION_CASES: DetectionCase[] = [
  { name: 'whole numbers are integers', samples: each([1, 2, -3]), at: ['v'], expected: { type: 'integer', ...number, data_type: 'integer' } },
  { name: 'a fraction in any sample makes a number', samples: each([1, 2.5]), at: ['v'], expected: { type: 'number', ...number, data_type: 'number' } },
  { name: 'ISO 8601 date-times in UTC are date-time', samples: each(['2024-05-01T10:20:30Z', '2024-05-02T00:00:00.000Z']), at: ['v'], expected: { ...text, data_type: 'date-time' } },
  { name: 'date-times with an offset and a fraction are date-time', samples: each(['2024-05-01T10:20:30.123456+05:30']), at: ['v'], expected: { ...text, data_type: 'date-time' } },
  { name: 'date-times with a space and no zone are date-time', samples: each(['2024-05-01 10:20:30']), at: ['v'], expected: { ...text, data_type: 'date-time' } },
  { name: 'ISO 8601 dates are date, leap days included', samples: each(['2024-02-29', '2023-12-31']), at: ['v'], expected: { ...text, data_type: 'date' } },
  { name: 'a date that is not on the calendar is text', samples: each(['2023-02-29']), at: ['v'], expected: { ...text, data_type: 'string' } },
  { name: 'a date-time with hour 25 is text', samples: each(['2024-05-01T25:00:00Z']), at: ['v'], expected: { ...text, data_type: 'string' } },
  { name: 'epoch seconds at the floor (2000-01-01) are epoch', samples: each([946_684_800]), at: ['v'], expected: { type: 'integer', ...number, data_type: 'epoch' } },
  { name: 'one second below the floor is an integer', samples: each([946_684_799]), at: ['v'], expected: { type: 'integer', ...number, data_type: 'integer' } },
  { name: 'epoch seconds at the ceiling (2100-01-01) are epoch', samples: each([4_102_444_800]), at: ['v'], expected: { type: 'integer', ...number, data_type: 'epoch' } },
  { name: 'epoch milliseconds are epoch', samples: each([1_700_000_000_000, 1_700_000_360_000]), at: ['v'], expected: { type: 'integer', ...number, data_type: 'epoch' } },
  { name: 'numbers between the two ranges (phone-number sized) are integers', samples: each([9_876_543_210]), at: ['v'], expected: { type: 'integer', ...number, data_type: 'integer' } },
  { name: 'numbers above the millisecond ceiling are integers', samples: each([4_102_444_800_001]), at: ['v'], expected: { type: 'integer', ...number, data_type: 'integer' } },
  { name: 'a fraction in the epoch range is a number, not a time', samples: each([1_700_000_000.5]), at: ['v'], expected: { type: 'number', ...number, data_type: 'number' } },
  { name: 'epoch seconds written as digits are text arriving as epoch', samples: each(['1700000000']), at: ['v'], expected: { ...text, data_type: 'epoch' } },
  { name: 'digits with a leading zero stay text', samples: each(['0946684800']), at: ['v'], expected: { ...text, data_type: 'string' } },
  { name: 'booleans are boolean', samples: each([true, false]), at: ['v'], expected: { type: 'boolean', arrival_format: 'boolean', data_type: 'boolean' } },
  { name: 'nulls are ignored when another sample gives the type', samples: each([null, 'a', null]), at: ['v'], expected: { ...text, data_type: 'string' } },
  { name: 'nested objects get their own properties', samples: [{ user: { name: 'a', age: 3 } }], at: ['user', 'age'], expected: { type: 'integer', ...number, data_type: 'integer' } },
  { name: 'an object property is an object', samples: [{ user: { name: 'a' } }], at: ['user'], expected: { type: 'object', arrival_format: 'object', data_type: 'object' } },
  { name: 'arrays are arrays', samples: [{ tags: ['a', 'b'] }], at: ['tags'], expected: { type: 'array', arrival_format: 'array', data_type: 'array' } },
  { name: 'array items get a type from every item of every sample', samples: [{ tags: ['a'] }, { tags: ['b', 'c'] }], at: ['tags', '[*]'], expected: { ...text, data_type: 'string' } },
  {
    name: 'objects inside arrays get properties',
    samples: [
      {
        lines: [
          { sku: 'a', qty: 1 },
          { sku: 'b', qty: 2.5 },
        ],
      },
    ],
    at: ['lines', '[*]', 'qty'],
    expected: { type: 'number', ...number, data_type: 'number' },
  },
  {
    name: 'arrays of key/value pairs get items with key and value',
    samples: [
      {
        attrs: [
          { key: 'k1', value: 'v1' },
          { key: 'k2', value: 'v2' },
        ],
      },
    ],
    at: ['attrs', '[*]', 'value'],
    expected: { ...text, data_type: 'string' },
  },
  { name: 'arrays of arrays nest items', samples: [{ grid: [[1, 2], [3]] }], at: ['grid', '[*]', '[*]'], expected: { type: 'integer', ...number, data_type: 'integer' } },
  { name: 'scalars of different types widen to string', samples: each([1, 'one', true]), at: ['v'], expected: { ...text, data_type: 'string' } },
  {
    name: 'an object and a scalar give the more common type',
    samples: [{ v: { a: 1 } }, { v: { a: 2 } }, { v: 'x' }],
    at: ['v'],
    expected: { type: 'object', arrival_format: 'object', data_type: 'object' },
  },
  { name: 'a key with a dot is kept as one key', samples: [{ 'a.b': 1 }], at: ['a.b'], expected: { type: 'integer', ...number, data_type: 'integer' } },
  { name: 'a key with a space is kept as it is', samples: [{ 'user name': 'x' }], at: ['user name'], expected: { ...text, data_type: 'string' } },
];

const UUIDS = ['0b7e2a52-5f0c-4b53-9d8e-1f0c3a9b6d11', '5c2f7d0e-8a41-4c6b-b0f3-2e9d7a1c4b22', 'a9d3e6f1-2b7c-4e8a-9f05-6c1d8b3e7a33'];

export const SUGGESTION_CASES: SuggestionCase[] = [
  {
    name: 'a type that differs across samples is MUST-FIX and names the samples that disagree',
    samples: each([1, 'two', 3, 'four', 5]),
    at: ['v'],
    expected: { severity: 'MUST-FIX', resolutionType: 'DATA_TYPE', message: /integer in 3 samples, string in 2 samples \(samples #2 and #4\)\. It is typed as string/ },
  },
  {
    name: 'a property some samples leave out is optional (MEDIUM)',
    samples: [{ a: 1, b: 1 }, { a: 2 }, { a: 3, b: 2 }],
    at: ['b'],
    expected: { severity: 'MEDIUM', resolutionType: 'OPTIONAL', message: /'b' is missing from 1 of 3 samples, so it is not required/ },
  },
  {
    name: 'a null counts as missing and the samples with nulls are named',
    samples: [{ b: null }, { b: 2 }],
    at: ['b'],
    expected: { severity: 'MEDIUM', resolutionType: 'OPTIONAL', message: /missing or null in 1 of 2 samples \(null in #1\)/, advice: /A null does not validate against the type integer/ },
  },
  {
    name: 'an optional nested property is counted against its parent objects',
    samples: [{ u: { a: 1, b: 1 } }, { u: { a: 1 } }, { x: 1 }],
    at: ['u', 'b'],
    expected: { severity: 'MEDIUM', resolutionType: 'OPTIONAL', message: /'u\.b' is missing from 1 of the 2 'u' objects/ },
  },
  {
    name: 'an optional property of array items is counted against the items',
    samples: [{ lines: [{ sku: 'a', note: 'x' }, { sku: 'b' }, { sku: 'c' }] }],
    at: ['lines', '[*]', 'note'],
    expected: { severity: 'MEDIUM', resolutionType: 'OPTIONAL', message: /'lines\[\*\]\.note' is missing from 2 of the 3 items of 'lines'/ },
  },
  {
    name: 'date-times are offered as the timestamp key, with their range',
    samples: each(['2024-05-02T00:00:00Z', '2024-05-01T10:20:30Z'], 'eventTime'),
    at: ['eventTime'],
    expected: { severity: 'LOW', resolutionType: 'INDEX', message: /ISO 8601 date-times from 2024-05-01T10:20:30Z to 2024-05-02T00:00:00Z\. It can be the dataset's timestamp key/ },
  },
  {
    name: 'dates are offered as the timestamp key',
    samples: each(['2024-05-02', '2024-05-01'], 'day'),
    at: ['day'],
    expected: { severity: 'LOW', resolutionType: 'INDEX', message: /ISO 8601 dates from 2024-05-01 to 2024-05-02/ },
  },
  {
    name: 'epoch seconds are offered as the timestamp key, with their range in UTC',
    samples: each([1_700_000_000, 1_700_003_600], 'ts'),
    at: ['ts'],
    expected: { severity: 'LOW', resolutionType: 'INDEX', message: /epoch times in seconds from 2023-11-14T22:13:20\.000Z to 2023-11-14T23:13:20\.000Z/ },
  },
  {
    name: 'epoch milliseconds are offered as the timestamp key',
    samples: each([1_700_000_000_000], 'ets'),
    at: ['ets'],
    expected: { severity: 'LOW', resolutionType: 'INDEX', message: /epoch times in milliseconds/ },
  },
  {
    name: 'an epoch-sized number with a name that promises no time asks to be checked',
    samples: each([1_700_000_000, 1_234_567_890], 'amount'),
    at: ['amount'],
    expected: { severity: 'LOW', resolutionType: 'INDEX', message: /'amount' holds epoch times in seconds/, advice: /if 'amount' is not a time, change its data_type to integer/ },
  },
  {
    name: 'a UUID unique across samples is offered as the dedup key',
    samples: each(UUIDS, 'event'),
    at: ['event'],
    expected: { severity: 'LOW', resolutionType: 'DEDUP', message: /'event' has a different value in each of the 3 samples \(all UUIDs\), so it can identify an event/ },
  },
  {
    name: 'an identifier-named field unique across samples is offered as the dedup key',
    samples: each(['A-1', 'A-2', 'A-3'], 'order_id'),
    at: ['order_id'],
    expected: { severity: 'LOW', resolutionType: 'DEDUP', message: /'order_id' has a different value in each of the 3 samples, so/ },
  },
  {
    name: 'a text field with distinct values for at least half its values is reported as high-cardinality',
    samples: each(['/a', '/b', '/a', '/c', '/d', '/e'], 'page'),
    at: ['page'],
    expected: { severity: 'LOW', resolutionType: 'ROLLUP', message: /'page' has 5 distinct values in 6 samples \(83%\): a high-cardinality field/ },
  },
  {
    name: 'email addresses are personal data to mask',
    samples: each(['a@example.com', 'b.c@mail.example.org'], 'email'),
    at: ['email'],
    expected: { severity: 'LOW', resolutionType: 'TRANSFORMATION', message: /holds email addresses, which are personal data/ },
  },
  {
    name: 'IPv4 and IPv6 addresses are personal data to mask',
    samples: each(['10.0.0.1', '2001:db8::1'], 'ip'),
    at: ['ip'],
    expected: { severity: 'LOW', resolutionType: 'TRANSFORMATION', message: /holds IP addresses/ },
  },
  {
    name: 'UUIDs that are not unique get an information note (empty severity)',
    samples: each([UUIDS[0], UUIDS[0]], 'session'),
    at: ['session'],
    expected: { severity: '', message: /'session' holds UUIDs\./ },
  },
  {
    name: 'URLs get an information note (empty severity)',
    samples: each(['https://example.com/a', 'http://example.org/b?c=1'], 'page'),
    at: ['page'],
    expected: { severity: '', message: /'page' holds URLs\./ },
  },
  {
    name: 'numbers written as text are noted',
    samples: each(['12', '3.5', '-7'], 'qty'),
    at: ['qty'],
    expected: { severity: 'LOW', message: /'qty' arrives as text, but every value is a number/, advice: /store it as long or double/ },
  },
  {
    name: 'true and false written as text are noted',
    samples: each(['true', 'FALSE'], 'flag'),
    at: ['flag'],
    expected: { severity: 'LOW', message: /'flag' arrives as text, but every value is true or false/ },
  },
  {
    name: 'values that mostly share a format name the samples that break it',
    samples: each(['2024-05-01T10:00:00Z', '2024-05-02T10:00:00Z', 'yesterday', '2024-05-03T10:00:00Z'], 'when'),
    at: ['when'],
    expected: { severity: 'LOW', message: /'when' holds ISO 8601 date-times in 3 of 4 values, but not in sample #3; it is typed as string/ },
  },
  {
    name: 'dates mixed with date-times are typed date-time and noted',
    samples: each(['2024-05-01T10:00:00Z', '2024-05-02'], 'when'),
    at: ['when'],
    expected: { severity: 'LOW', message: /'when' mixes ISO 8601 dates \(sample #2\) with date-times; it is typed as date-time/ },
  },
  {
    name: 'epoch seconds mixed with milliseconds are noted',
    samples: each([1_700_000_000, 1_700_000_000_000], 'ts'),
    at: ['ts'],
    expected: { severity: 'LOW', message: /'ts' mixes epoch seconds \(sample #1\) and milliseconds \(sample #2\)/ },
  },
  {
    name: 'null items of an array are noted',
    samples: [{ tags: ['a', null] }, { tags: ['b'] }],
    at: ['tags', '[*]'],
    expected: { severity: 'LOW', message: /'tags\[\*\]' has null items in sample #1; the item type, string, comes from the other items/ },
  },
  {
    name: 'a key with a dot is reported, since dotted paths would misread it',
    samples: [{ 'geo.lat': 1.5 }],
    at: ['geo.lat'],
    expected: { severity: 'LOW', resolutionType: 'NAMING', message: /The key "geo\.lat" contains a dot/, advice: /e\.g\. "geo_lat"/ },
  },
  {
    name: 'a key with white space is reported',
    samples: [{ u: { 'first name': 'a' } }],
    at: ['u', 'first name'],
    expected: { severity: 'LOW', resolutionType: 'NAMING', message: /The key "first name" \(u\["first name"\]\) contains white space/ },
  },
  {
    name: 'an empty key is reported',
    samples: [{ '': 1 }],
    at: [''],
    expected: { severity: 'LOW', resolutionType: 'NAMING', message: /An empty key \(\[""\]\)/ },
  },
  {
    name: 'a reserved JavaScript name is reported and kept as an ordinary key',
    samples: [JSON.parse('{"constructor": "x"}') as Record<string, unknown>],
    at: ['constructor'],
    expected: { severity: 'LOW', resolutionType: 'NAMING', message: /The key "constructor" is a reserved name in JavaScript/ },
  },
];

/** The property schema at `at` inside a schema document, or undefined. */
export function propertyAt(schema: unknown, at: At): Record<string, any> | undefined {
  let node = schema as Record<string, any> | undefined;
  for (const step of at) {
    if (!node) return undefined;
    if (step === '[*]') node = node.items;
    else node = node.properties && Object.hasOwn(node.properties, step) ? node.properties[step] : undefined;
  }
  return node;
}

/** The three fields every property carries, for comparing with a case's `expected`. */
export function typeOf(property: Record<string, any> | undefined): DetectionCase['expected'] | undefined {
  return property && { type: property.type, arrival_format: property.arrival_format, data_type: property.data_type };
}

/** The schema document's own path of a property, as suggestions carry it. */
export function schemaPathOf(at: At): string {
  return at
    .map((step) => (step === '[*]' ? '.items' : /^[^.\s[\]"'\\]+$/.test(step) ? `.properties.${step}` : `.properties[${JSON.stringify(step)}]`))
    .join('')
    .slice(1);
}
