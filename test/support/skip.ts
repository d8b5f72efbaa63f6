// Suites that need something this machine may lack (a binary, a broker) are skipped with their
// reason in their title, and test/support/contract-reporter.mjs prints each reason once at the end
// of the run: a green run says what it did not test and why, and nothing else.
import { describe } from '@jest/globals';

/** `describe` when `condition` holds; otherwise a skipped describe whose title carries `reason`. */
export function describeWhen(condition: unknown, reason: string): (title: string, body: () => void) => void {
  if (condition) return (title, body) => describe(title, body);
  const skipped = describe.skip;
  return (title, body) => skipped(`${title} [skipped: ${reason}]`, body);
}
