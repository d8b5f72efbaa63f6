// Prints how many contract scenarios ran over each transport (test/contract/harness.ts names each
// run's top describe `<suite> over <transport>`), so a transport that silently runs fewer shows.
export default class ContractReporter {
  onRunComplete(_contexts, results) {
    const counts = new Map();
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        const match = /^.+ over (rest|graphql)$/.exec(test.ancestorTitles[0] ?? '');
        if (match && test.status !== 'pending') counts.set(match[1], (counts.get(match[1]) ?? 0) + 1);
      }
    }
    if (counts.size === 0) return;
    const line = [...counts].map(([transport, n]) => `${transport} ${n}`).join(', ');
    process.stdout.write(`Contract scenarios per transport: ${line}\n`);
  }
}
