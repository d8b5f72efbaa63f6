// PII detection: precision and recall of the built-in detectors on the labelled corpus of
// test/support/pii-corpus.ts (target: at least 0.95 each), the entries they get wrong, and the time
// one analysis of 1,000 records of 20 fields takes. Run: node --import tsx bench/pii.ts
import { performance } from 'node:perf_hooks';
import { detectValue, createPiiService } from '../src/modules/pii/index.js';
import { BuiltinPiiDetector } from '../src/platform/pii-detector/builtin.js';
import { PII_CORPUS, scoreCorpus } from '../test/support/pii-corpus.js';

const service = createPiiService(new BuiltinPiiDetector(detectValue), { maxRecords: 100_000, maxBytes: 100 * 1024 * 1024, minScore: 0.5 });

/** `a.b` becomes {a: {b: value}}, so nested names are tested as nested fields. */
function record(field: string, value: unknown): Record<string, unknown> {
  return field.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

const score = await scoreCorpus(async (field, value) => (await service.analyze('bench', [record(field, value)]))[0]?.type ?? null);
console.log(`corpus: ${PII_CORPUS.length} values (${PII_CORPUS.filter((entry) => entry[2] !== null).length} personal, the rest look-alikes or neither)`);
console.log(`precision ${score.precision.toFixed(3)}  recall ${score.recall.toFixed(3)}  (TP ${score.truePositives}, FP ${score.falsePositives}, FN ${score.falseNegatives})`);
for (const mistake of score.mistakes) console.log(`  wrong: ${mistake.field} = ${JSON.stringify(mistake.value)}: expected ${mistake.expected}, got ${mistake.got}`);

const records = Array.from({ length: 1000 }, (_, i) => ({
  id: `evt-${i}`,
  user: { email: `user${i}@example.com`, phone: `+91 98765 ${String(10000 + i).slice(-5)}`, name: 'Jane Doe', address: { line1: `${i} MG Road, Bengaluru` } },
  card: '4111 1111 1111 1111',
  ip: `81.2.${i % 250}.${(i * 7) % 250}`,
  amount: i * 1.5,
  tags: ['a', 'b'],
  meta: { source: 'bench', version: '1.2.3', ts: new Date(1_700_000_000_000 + i * 1000).toISOString(), order: `ORD-${100000 + i}`, note: 'nothing personal here' },
  items: [{ sku: `SKU-${i}`, qty: i % 5 }],
}));
const runs: number[] = [];
for (let run = 0; run < 5; run++) {
  const start = performance.now();
  await service.analyze('bench', records);
  runs.push(performance.now() - start);
}
runs.sort((a, b) => a - b);
console.log(`1,000 records x 20 fields: median ${runs[2]!.toFixed(0)} ms over 5 runs`);
if (score.precision < 0.95 || score.recall < 0.95) process.exitCode = 1;
