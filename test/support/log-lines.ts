// Collects the gateway's JSON log lines (pino) as they are written, for tests that check what was logged.
import { Writable } from 'node:stream';

export type Line = Record<string, any>;

/** Collects JSON log lines as they are written. */
export function lineCollector(): { stream: Writable; lines: Line[] } {
  const lines: Line[] = [];
  let pending = '';
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      pending += chunk.toString();
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(pending.slice(0, newline)));
        pending = pending.slice(newline + 1);
      }
      callback();
    },
  });
  return { stream, lines };
}
