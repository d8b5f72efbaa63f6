// What the tests that run a Debian daemon (HAProxy, PgBouncer) share: starting it until its port
// accepts connections, and stopping it with its temporary folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import net from 'node:net';

/** True once something on 127.0.0.1 accepts a connection on `port`. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Stops the daemon (SIGTERM, waiting for it to exit) and removes the folder of its files. */
export async function stopDaemon(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Starts `command` and waits (up to 10 s) until `port` accepts connections; a daemon that exits or
 * does not listen in time is killed, its folder removed, and its output thrown.
 */
export async function startDaemon(name: string, command: string, args: readonly string[], port: number, dir: string): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`${name} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, output: () => output };
}
