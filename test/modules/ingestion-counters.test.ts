// The counters describe this process's traffic for any dataset id a caller names, so they must not
// grow without bound when callers name ids that do not exist.
import { describe, expect, it } from '@jest/globals';
import { IngestionCounters } from '../../src/modules/ingestion/counters.js';

describe('ingestion counters', () => {
  it('reading the counts of an id never seen answers zeros and adds nothing', () => {
    const counters = new IngestionCounters(undefined, 2);
    for (let i = 0; i < 100; i++) expect(counters.snapshot(`ghost-${i}`).requests).toBe(0);
    counters.recordAccepted('real', { accepted: 3 });
    counters.recordAccepted('other', { accepted: 1 });
    // Had the reads added entries, the cap of 2 would already have evicted one of these.
    expect(counters.snapshot('real')).toMatchObject({ requests: 1, received: 3 });
    expect(counters.snapshot('other')).toMatchObject({ requests: 1, received: 1 });
  });

  it('keeps at most the configured number of datasets, dropping ids that were only ever refused first', () => {
    const counters = new IngestionCounters(undefined, 3);
    counters.recordAccepted('live-a', { accepted: 5 });
    counters.recordRejected('guess-1');
    counters.recordAccepted('live-b', { accepted: 2 });
    counters.recordRejected('guess-2'); // full: guess-1 (refused only) goes, the live datasets stay
    expect(counters.snapshot('guess-1').rejectedRequests).toBe(0);
    expect(counters.snapshot('guess-2').rejectedRequests).toBe(1);
    expect(counters.snapshot('live-a').received).toBe(5);
    expect(counters.snapshot('live-b').received).toBe(2);
    expect(counters.totalRequests()).toBe(2);
  });
});
