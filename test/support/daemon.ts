// What the tests that run a Debian daemon (HAProxy, PgBouncer) share: whether its port accepts
// connections yet, and stopping it with its temporary folder.
import type { ChildProcess } from 'node:child_process';
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
