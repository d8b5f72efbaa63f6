// Prints, after the summary: how many contract scenarios ran over each transport
// (test/contract/harness.ts names each run's top describe `<suite> over <transport>`), so a
// transport that silently runs fewer shows; and why tests were skipped (test/support/skip.ts puts
// the reason in the skipped describe's title), once per reason, and how many in all.
//
// In CI (GATEWAY_CI=1, set by .ci/run) a skip is a failure of the run unless it is of an engine that
// cannot be installed on these machines (Kafka, Druid: their suites run when KAFKA_BROKERS or
// DRUID_URL is given): everything else a suite needs, .ci/run installs.
const ALLOWED_IN_CI = [/KAFKA_BROKERS/, /DRUID_URL/];

export default class ContractReporter {
  getLastError() {
    return this.error;
  }

  onRunComplete(_contexts, results) {
    const counts = new Map();
    const skipped = new Map();
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        if (test.status === 'pending') {
          const reason = test.ancestorTitles.map((title) => /\[skipped: (.+)\]$/.exec(title)?.[1]).find(Boolean) ?? `no reason given (${file.testFilePath.split('/test/').pop()})`;
          skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
        }
        const match = /^.+ over (rest|graphql|graphql-ws|graphql-sse)$/.exec(test.ancestorTitles[0] ?? '');
        if (match && test.status !== 'pending') counts.set(match[1], (counts.get(match[1]) ?? 0) + 1);
      }
    }
    for (const [reason, n] of skipped) process.stdout.write(`Skipped ${n} test(s): ${reason}\n`);
    const total = [...skipped.values()].reduce((sum, n) => sum + n, 0);
    process.stdout.write(`Skipped tests: ${total}\n`);
    if (process.env.GATEWAY_CI === '1') {
      const refused = [...skipped.keys()].filter((reason) => !ALLOWED_IN_CI.some((allowed) => allowed.test(reason)));
      if (refused.length > 0) {
        this.error = new Error(`In CI only Kafka and Druid suites may skip; these skipped:\n  ${refused.join('\n  ')}`);
        process.stdout.write(`${this.error.message}\n`);
      }
    }
    if (counts.size === 0) return;
    const line = [...counts].map(([transport, n]) => `${transport} ${n}`).join(', ');
    process.stdout.write(`Contract scenarios per transport: ${line}\n`);
  }
}
