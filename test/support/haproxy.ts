// A real HAProxy (Debian package `haproxy`) in front of several gateway copies, routing on /readyz
// as an operator's balancer would (deploy/haproxy/haproxy.cfg has the same checks).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDaemon, stopDaemon } from './daemon.js';

export const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((candidate) => spawnSync(candidate, ['-v']).status === 0);

export interface HaProxy {
  url: string;
  stop(): Promise<void>;
}

/** Health-check interval: with `fall 2`, a copy that turns not-ready stops getting requests within ~2 intervals. */
export const CHECK_INTERVAL_MS = 250;

export async function startHaProxy(port: number, backends: string[]): Promise<HaProxy> {
  if (!HAPROXY) throw new Error('haproxy is not installed');
  const dir = mkdtempSync(path.join(tmpdir(), 'haproxy-'));
  const cfg = path.join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      // A check waits this long for /readyz (by default only \`inter\`, 250 ms): on a loaded machine a
      // slow but ready copy was taken out, and with all three out HAProxy answered 503 itself.
      '  timeout check 2s',
      // A request refused on connect (a copy that just closed its socket) is tried on another copy.
      '  retries 3',
      '  option redispatch 1',
      '  retry-on conn-failure empty-response response-timeout',
      'frontend gateways',
      `  bind 127.0.0.1:${port}`,
      '  default_backend copies',
      'backend copies',
      '  balance roundrobin',
      '  option httpchk',
      // HTTP/1.1 with a Host: a gateway with AUTH_MODE=none answers loopback names only.
      '  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host localhost',
      '  http-check expect status 200',
      ...backends.map((backend, index) => `  server copy${index + 1} ${new URL(backend).host} check inter ${CHECK_INTERVAL_MS} fall 2 rise 2`),
      '',
    ].join('\n'),
  );
  const { child, output: daemonOutput } = await startDaemon('haproxy', HAPROXY, ['-db', '-f', cfg], port, dir);
  // Ready once every copy has passed its checks (`rise 2`): until then HAProxy answers 503.
  const url = `http://127.0.0.1:${port}`;
  const readyBy = Date.now() + 30_000;
  for (let passed = 0; passed < backends.length * 2;) {
    const status = await fetch(`${url}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    passed = status === 200 ? passed + 1 : 0;
    if (Date.now() > readyBy) throw new Error(`haproxy found no ready copy within 30 s:\n${daemonOutput()}`);
    await new Promise((resolve) => setTimeout(resolve, CHECK_INTERVAL_MS / 2));
  }
  return {
    url,
    stop: () => stopDaemon(child, dir),
  };
}
