// Suites that need something this machine may lack (a binary, a broker) are skipped with their
// reason in their title, and test/support/contract-reporter.mjs prints each reason once at the end
// of the run: a green run says what it did not test and why, and nothing else.
//
// In CI (GATEWAY_CI=1, set by .ci/run), a suite that needs a Debian package .ci/run installs does
// not skip: it fails, saying what is missing, so a failed install cannot pass as a green run. Only
// engines that cannot be installed here (Kafka, Druid: their suites run when an address is given)
// may skip there, and the reporter fails the run on any other skip.
import { describe, it } from '@jest/globals';

/** `describe` when `condition` holds; otherwise a skipped describe whose title carries `reason`. */
export function describeWhen(condition: unknown, reason: string): (title: string, body: () => void) => void {
  if (condition) return (title, body) => describe(title, body);
  const skipped = describe.skip;
  return (title, body) => skipped(`${title} [skipped: ${reason}]`, body);
}

/** True under .ci/run, where every Debian package it installs must be there. */
export const IN_CI = process.env.GATEWAY_CI === '1';

/**
 * `describe` when `condition` holds (the Debian packages `packages` are installed). Otherwise a
 * skipped describe saying what to install, or in CI a failing one: .ci/run installs them.
 */
export function describeWhenInstalled(condition: unknown, packages: string): (title: string, body: () => void) => void {
  if (condition || !IN_CI) return describeWhen(condition, `not installed: Debian package(s) ${packages}; .ci/run installs them`);
  return (title) =>
    describe(title, () => {
      it(`needs the Debian package(s) ${packages}, which .ci/run installs`, () => {
        throw new Error(`${packages} missing in CI (GATEWAY_CI=1): .ci/run installs them, so a skip here would hide a failed install`);
      });
    });
}
