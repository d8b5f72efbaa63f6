// Prints, after the summary: how many contract scenarios ran over each transport
// (test/contract/harness.ts names each run's top describe `<suite> over <transport>`), so a
// transport that silently runs fewer shows; and why tests were skipped (test/support/skip.ts puts
// the reason in the skipped describe's title), once per reason.
export default class ContractReporter {
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
    if (counts.size === 0) return;
    const line = [...counts].map(([transport, n]) => `${transport} ${n}`).join(', ');
    process.stdout.write(`Contract scenarios per transport: ${line}\n`);
  }
}
