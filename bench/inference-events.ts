// The README's schema-inference benchmark events: 10,000 events of 50 top-level fields (10.8 MB as
// JSON), generated from a fixed seed so that every run (bench/schema-inference.ts, the jobs test that
// sends them as a file) infers the same events.

/** Mulberry32: a small seeded generator, so every run infers the same events. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const CITIES = ['Pune', 'Delhi', 'Agra', 'Goa', 'Kochi', 'Surat', 'Patna', 'Indore'];
const STATUSES = ['ok', 'ok', 'ok', 'retry', 'failed'];

/** One event with 50 top-level fields: text, integers, numbers, booleans, times, ids, nested objects and arrays. */
function makeEvent(random: () => number, index: number): Record<string, unknown> {
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const hex = (length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');
  const when = 1_700_000_000_000 + index * 1_000 + Math.floor(random() * 1_000);
  const event: Record<string, unknown> = {
    eid: pick(['INTERACT', 'IMPRESSION', 'AUDIT', 'LOG']),
    mid: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
    ets: when,
    syncts: Math.floor(when / 1000),
    event_time: new Date(when).toISOString(),
    event_date: new Date(when).toISOString().slice(0, 10),
    user_email: `user${index}@example.com`,
    client_ip: `10.${index % 256}.${Math.floor(index / 256) % 256}.${Math.floor(random() * 256)}`,
    page_url: `https://example.com/page/${Math.floor(random() * 500)}`,
    city: pick(CITIES),
    status: pick(STATUSES),
    context: { channel: pick(['web', 'app']), env: pick(['prod', 'test']), sid: `${hex(8)}-${hex(4)}-4${hex(3)}-b${hex(3)}-${hex(12)}`, did: hex(16) },
    actor: { id: `user-${Math.floor(random() * 5_000)}`, type: 'User', roles: [pick(['viewer', 'editor']), 'member'] },
    device: { os: pick(['android', 'ios', 'linux']), model: `m-${Math.floor(random() * 40)}`, memory_gb: pick([2, 4, 8]), battery: Math.round(random() * 1000) / 10 },
    geo: { lat: random() * 180 - 90, lon: random() * 360 - 180, accuracy_m: Math.floor(random() * 100) },
    cart: Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({ sku: `SKU-${Math.floor(random() * 900)}`, qty: 1 + Math.floor(random() * 4), price: Math.round(random() * 100_000) / 100 })),
    tags: Array.from({ length: Math.floor(random() * 3) }, () => pick(['new', 'promo', 'repeat'])),
    attrs: [
      { key: 'campaign', value: pick(['spring', 'summer']) },
      { key: 'variant', value: pick(['a', 'b']) },
    ],
  };
  for (let n = 0; n < 10; n += 1) event[`metric_${n}`] = Math.floor(random() * 10_000);
  for (let n = 0; n < 8; n += 1) event[`ratio_${n}`] = random();
  for (let n = 0; n < 6; n += 1) event[`flag_${n}`] = random() < 0.5;
  for (let n = 0; n < 6; n += 1) event[`label_${n}`] = `label-${n}-${Math.floor(random() * 20)}`;
  // Some fields come and go, and one is sometimes null, as in real feeds.
  if (random() < 0.9) event.referrer = `https://ref.example.org/${Math.floor(random() * 50)}`;
  event.coupon = random() < 0.3 ? null : `C${Math.floor(random() * 100)}`;
  return event;
}

/** `count` benchmark events, the same ones on every call. */
export function benchmarkEvents(count: number): Record<string, unknown>[] {
  const random = seeded(20_261_122);
  return Array.from({ length: count }, (_, index) => makeEvent(random, index));
}
