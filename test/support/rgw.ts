// A real S3 for the tests: Ceph's RADOS Gateway from Debian (packages radosgw, ceph-mon, ceph-osd),
// started by scripts/rgw.sh in a temporary folder (one monitor, one in-memory OSD, no cephx, one
// user). It takes 10-20 s to start, so a suite starts it once, in beforeAll, and shares it.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/rgw.sh');
const DAEMONS = ['/usr/bin/radosgw', '/usr/bin/ceph-mon', '/usr/bin/ceph-osd'];

/** True when the Debian packages RGW needs are installed. */
export const rgwInstalled = DAEMONS.every((file) => existsSync(file));

export interface RunningRgw {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Makes a bucket through S3 itself, as a client would. */
  createBucket(name: string): Promise<void>;
  /** The RADOS Gateway's process id (e.g. to stop it with SIGSTOP). */
  gatewayPid(): number;
  /** Kills the RADOS Gateway at once (the store goes down; the cluster behind it stays). */
  killGateway(): Promise<void>;
  /** Stops every daemon and removes the folder. */
  stop(): Promise<void>;
}

export async function startRgw(): Promise<RunningRgw> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-rgw-'));
  const run = promisify(execFile);
  let stdout: string;
  try {
    ({ stdout } = await run(SCRIPT, ['start', dir], { timeout: 90_000 }));
  } catch (error) {
    await run(SCRIPT, ['stop', dir]).catch(() => undefined);
    throw error;
  }
  const env = Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => line.split('=', 2) as [string, string]),
  );
  const endpoint = env.S3_ENDPOINT!;
  const credentials = { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! };
  const region = 'us-east-1';
  const gatewayPid = () => Number(readFileSync(path.join(dir, 'run', 'client.rgw.pid'), 'utf8'));
  return {
    endpoint,
    ...credentials,
    region,
    async createBucket(name) {
      const client = new S3Client({ region, endpoint, forcePathStyle: true, credentials });
      try {
        await client.send(new CreateBucketCommand({ Bucket: name }));
      } finally {
        client.destroy();
      }
    },
    gatewayPid,
    async killGateway() {
      process.kill(gatewayPid(), 'SIGKILL');
      // Gone once its port refuses connections.
      for (let i = 0; i < 100; i += 1) {
        const up = await fetch(endpoint).then(
          () => true,
          () => false,
        );
        if (!up) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the RADOS Gateway still answers after SIGKILL');
    },
    async stop() {
      await run(SCRIPT, ['stop', dir]);
    },
  };
}
