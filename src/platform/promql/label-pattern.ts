// Label patterns (`=~`, `!~`, label_replace) run on RE2, as Prometheus's do (Go's regexp is RE2):
// the same syntax, and matching time linear in the label's length whatever the pattern, so no
// query can hold the event loop with a pattern that backtracks catastrophically.
import { RE2JS } from 're2js';

export type LabelPattern = RE2JS;

/** `pattern` anchored at both ends with `.` matching newlines, as Prometheus anchors it; throws a SyntaxError naming the problem. */
export function compileLabelPattern(pattern: string): LabelPattern {
  try {
    return RE2JS.compile(`^(?:${pattern})$`, RE2JS.DOTALL);
  } catch (error) {
    throw new SyntaxError((error as Error).message, { cause: error });
  }
}
