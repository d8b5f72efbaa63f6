// Checks that the HTTP port can be bound before anything else starts: a busy port is then one
// clear line, not a stack trace after the database has started and the migrations have run.
import { createServer } from 'node:net';

/** Resolves with undefined when `host:port` can be bound, or with a one-line reason when not. */
export function portProblem(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(`port ${port} on ${host} is already in use (another gateway?): stop that process or set PORT to a free port`);
      else if (error.code === 'EACCES') resolve(`not allowed to listen on port ${port} on ${host}: choose a port above 1023 with PORT`);
      else resolve(`cannot listen on ${host}:${port}: ${error.message}`);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}
