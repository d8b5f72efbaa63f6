// The order test files start in: the longest first, so that neither worker is left running a long
// file alone at the end of the run. Jest's own order uses the durations of the last run on this
// machine; on a clean machine (CI) it has none and falls back to file size, which puts the contract
// suites (a few lines each, tens of seconds each) last. There, the durations below stand in: seconds
// measured in a full run, for the files that take 10 s or more; the other files follow in jest's
// size order. A stale figure only changes the order, never what runs.
import path from 'node:path';
import Sequencer from '@jest/test-sequencer';

const MEASURED_SECONDS = {
  'test/platform/scale-out.test.ts': 70,
  'test/contract/alerts.test.ts': 40,
  'test/graphql/list-contract.test.ts': 38,
  'test/deploy/layers.test.ts': 37,
  'test/contract/templates.test.ts': 32,
  'test/http/browser.test.ts': 25,
  'test/platform/row-bound-million.test.ts': 27,
  'test/platform/embedded-restart.test.ts': 26,
  'test/contract/datasets.test.ts': 25,
  'test/contract/connector-archives.test.ts': 25,
  'test/platform/list-plans.test.ts': 23,
  'test/modules/prometheus-rule-file.test.ts': 20,
  'test/contract/alert-rules.test.ts': 17,
  'test/platform/sampler-lease.test.ts': 17,
  'test/platform/promql-prometheus-corpus.test.ts': 16,
  'test/platform/database-outage.test.ts': 16,
  'test/http/fast-path.test.ts': 15,
  'test/platform/druid-query-engine.test.ts': 14,
  'test/graphql/subscriptions.test.ts': 14,
  'test/platform/ingestion-crash.test.ts': 13,
  'test/contract/dataset-datasources.test.ts': 13,
  'test/graphql/subscription-guard.test.ts': 13,
  'test/contract/ingestion.test.ts': 13,
  'test/http/auth-rest.test.ts': 12,
  'test/graphql/lists.test.ts': 12,
  'test/http/metrics.test.ts': 12,
  'test/platform/api-key-script.test.ts': 12,
  'test/platform/graceful-drain.test.ts': 12,
  'test/rest/template-reader.test.ts': 12,
  'test/contract/files.test.ts': 12,
  'test/graphql/published-results.test.ts': 11,
  'test/http/fuzz.test.ts': 11,
  'test/contract/data-access.test.ts': 11,
  'test/contract/connectors.test.ts': 11,
  'test/graphql/auth.test.ts': 11,
  'test/rest/template-injection.test.ts': 11,
  'test/platform/shared-rate-limit.test.ts': 11,
  'test/graphql/series.test.ts': 11,
  'test/contract/metrics.test.ts': 11,
  'test/graphql/limits.test.ts': 10,
  'test/graphql/dataset-statements.test.ts': 10,
};

export default class LongestFirst extends Sequencer {
  sort(tests) {
    // Jest's order first: it sets each test's duration from its cache, and is the tie-break below.
    const ordered = super.sort(tests);
    const rank = new Map(ordered.map((test, index) => [test, index]));
    const seconds = (test) => (test.duration != null ? test.duration / 1000 : MEASURED_SECONDS[path.relative(test.context.config.rootDir, test.path)]);
    // With durations cached, a file without one is new and may be long: it goes first, as in jest's
    // order. Without any (a clean machine), the files without a figure are the short ones: last.
    const unknownFirst = ordered.some((test) => test.duration != null);
    return [...ordered].sort((a, b) => {
      if (this.hasFailed(a) !== this.hasFailed(b)) return this.hasFailed(a) ? -1 : 1;
      const [secondsA, secondsB] = [seconds(a), seconds(b)];
      if (secondsA !== undefined && secondsB !== undefined) return secondsB - secondsA;
      if (secondsA === undefined && secondsB === undefined) return rank.get(a) - rank.get(b);
      return (secondsA === undefined) === unknownFirst ? -1 : 1;
    });
  }
}
