// A progress line on stderr: redrawn in place on a terminal, one line per update (at most one a
// second, and the last) otherwise, so a log or a test reads every figure.

const WIDTH = 24;

export function bar(fraction: number): string {
  const filled = Math.round(Math.max(0, Math.min(1, fraction)) * WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%`;
}

export const count = (value: number) => Math.round(value).toLocaleString('en-US');

export function progressLine(stream: NodeJS.WriteStream = process.stderr) {
  let lastWrite = 0;
  let pending: string | undefined;
  return {
    update(line: string, options: { force?: boolean } = {}): void {
      if (stream.isTTY) {
        stream.write(`\r${line}\u001b[K`);
        return;
      }
      pending = line;
      const now = Date.now();
      if (options.force || now - lastWrite >= 1_000) {
        stream.write(`${line}\n`);
        lastWrite = now;
        pending = undefined;
      }
    },
    /** Writes the last line (on a terminal: ends it). */
    end(): void {
      if (stream.isTTY) stream.write('\n');
      else if (pending !== undefined) stream.write(`${pending}\n`);
      pending = undefined;
    },
  };
}
