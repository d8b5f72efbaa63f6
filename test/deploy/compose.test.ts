// No Docker engine runs on the project's machines, so the two compose stacks (docker-compose.yml,
// deploy/scale/docker-compose.yml) are held to what an operator relies on by reading them: every
// copy of the gateway shares S3 when there are several, the pool goes through PgBouncer while LISTEN
// goes to PostgreSQL, secrets are files read through *_FILE (made by deploy/make-secrets.sh), every
// service has a health check that what depends on it waits for, and nothing lands in an anonymous
// volume. HAProxy's and PgBouncer's configurations are checked by the programs themselves.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { environmentSchema, secretVariables } from '../../src/config.js';
import { findFreePort } from '../../src/platform/database/embedded.js';
import { startDaemon, stopDaemon } from '../support/daemon.js';
import { PGBOUNCER } from '../support/pgbouncer.js';
import { describeWhen } from '../support/skip.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((candidate) => spawnSync(candidate, ['-v']).status === 0);

type DependsOn = Record<string, { condition?: string }> | string[];
interface Service {
  image?: string;
  build?: string | { context: string };
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  depends_on?: DependsOn;
  healthcheck?: { test?: string[] | string; disable?: boolean };
  restart?: string;
}
interface Compose {
  services: Record<string, Service>;
  secrets?: Record<string, { file?: string }>;
  volumes?: Record<string, unknown>;
}

const STACKS = ['docker-compose.yml', 'deploy/scale/docker-compose.yml'].map((file) => ({
  file,
  dir: path.dirname(path.join(ROOT, file)),
  // YAML merge keys (`<<: *gateway`) as compose reads them.
  compose: parse(readFileSync(path.join(ROOT, file), 'utf8'), { merge: true }) as Compose,
}));

// The secrets as deploy/make-secrets.sh makes them, in a folder of this test's own.
const secretsDir = path.join(mkdtempSync(path.join(tmpdir(), 'gateway-secrets-')), 'secrets');
execFileSync('sh', [path.join(ROOT, 'deploy/make-secrets.sh'), secretsDir]);
const secretValue = (name: string) => readFileSync(path.join(secretsDir, name), 'utf8').replace(/\n$/, '');
afterAll(() => rmSync(path.dirname(secretsDir), { recursive: true, force: true }));

/** The folders the images declare as VOLUME (what lands in an anonymous volume unless a named one is mounted there). */
const IMAGE_VOLUMES: Record<string, string[]> = {
  postgres: ['/var/lib/postgresql/data'],
  zookeeper: ['/data', '/datalog', '/logs'],
  'apache/druid': ['/opt/druid/var'],
  'minio/minio': ['/data'],
};

function dockerfileOf(dir: string, service: Service): string | undefined {
  if (!service.build) return undefined;
  const context = typeof service.build === 'string' ? service.build : service.build.context;
  return readFileSync(path.join(dir, context, 'Dockerfile'), 'utf8');
}

/** Services that run once and exit (a bucket made): what depends on them waits for their success. */
function jobsOf(compose: Compose): Set<string> {
  const jobs = new Set<string>();
  for (const service of Object.values(compose.services)) {
    if (Array.isArray(service.depends_on)) continue;
    for (const [name, { condition }] of Object.entries(service.depends_on ?? {})) if (condition === 'service_completed_successfully') jobs.add(name);
  }
  return jobs;
}

const isGateway = (dir: string, service: Service) => dockerfileOf(dir, service)?.includes('dist/src/main.js') ?? false;
const secretFileOf = (service: Service, variable: string) => {
  const file = service.environment?.[`${variable}_FILE`];
  expect([variable, file]).toEqual([variable, expect.stringMatching(/^\/run\/secrets\/[\w-]+$/)]);
  const name = path.basename(file!);
  expect(service.secrets).toContain(name);
  return name;
};

describe.each(STACKS)('$file', ({ dir, compose }) => {
  const services = Object.entries(compose.services);
  const jobs = jobsOf(compose);
  const gateways = services.filter(([, service]) => isGateway(dir, service));

  it('runs the gateway image (and at least one copy of it)', () => {
    expect(gateways.length).toBeGreaterThan(0);
  });

  it('gives every service a health check, its own or its image', () => {
    for (const [name, service] of services) {
      if (jobs.has(name)) {
        expect([name, service.restart]).toEqual([name, 'no']);
        continue;
      }
      const own = service.healthcheck && !service.healthcheck.disable && service.healthcheck.test !== undefined && service.healthcheck.test[0] !== 'NONE';
      const image = /^HEALTHCHECK\s+(?!NONE)/m.test(dockerfileOf(dir, service) ?? '');
      expect([name, own || image]).toEqual([name, true]);
    }
  });

  it('starts nothing before what it depends on is healthy (or, for a job, done)', () => {
    for (const [name, service] of services) {
      if (!service.depends_on) continue;
      expect([name, Array.isArray(service.depends_on)]).toEqual([name, false]);
      for (const [dependency, { condition }] of Object.entries(service.depends_on)) {
        expect([name, dependency, condition]).toEqual([name, dependency, jobs.has(dependency) ? 'service_completed_successfully' : 'service_healthy']);
        expect(compose.services[dependency]).toBeDefined();
      }
    }
  });

  it('keeps what must survive `down` in named volumes, and mounts only files of this repository read-only', () => {
    const named = new Set(Object.keys(compose.volumes ?? {}));
    for (const [name, service] of services) {
      const targets: string[] = [];
      for (const volume of service.volumes ?? []) {
        const [source, target, mode] = volume.split(':');
        expect([name, volume, target]).toEqual([name, volume, expect.stringMatching(/^\//)]);
        targets.push(target!);
        if (source!.startsWith('.')) {
          expect([name, volume, existsSync(path.join(dir, source!)), mode]).toEqual([name, volume, true, 'ro']);
        } else {
          expect([name, volume, named.has(source!)]).toEqual([name, volume, true]);
        }
      }
      const declared = [
        ...(service.image ? (IMAGE_VOLUMES[service.image.split(':')[0]!] ?? []) : []),
        ...[...(dockerfileOf(dir, service) ?? '').matchAll(/^VOLUME\s+\[([^\]]*)\]/gm)].flatMap((match) => JSON.parse(`[${match[1]!}]`) as string[]),
      ];
      for (const folder of declared) expect([name, folder, targets.includes(folder)]).toEqual([name, folder, true]);
    }
    // Each copy keeps its own DATA_DIR.
    const dataVolumes = gateways.map(([, service]) => service.volumes?.find((volume) => volume.endsWith(':/data')));
    expect(new Set(dataVolumes).size).toBe(gateways.length);
  });

  it('gives the gateway only variables its configuration knows, every secret as a file and none in the clear', () => {
    const known = new Set([...Object.keys(environmentSchema.shape), ...secretVariables.map((name) => `${name}_FILE`), 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_REGION']);
    for (const [name, service] of gateways) {
      const variables = Object.keys(service.environment ?? {});
      expect([name, variables.filter((variable) => !known.has(variable))]).toEqual([name, []]);
      expect([name, variables.filter((variable) => secretVariables.includes(variable))]).toEqual([name, []]);
      for (const variable of variables.filter((each) => each.endsWith('_FILE'))) secretFileOf(service, variable.slice(0, -'_FILE'.length));
      for (const variable of ['DATABASE_URL', 'JWT_SECRET', 'CONNECTOR_CONFIG_KEY']) secretFileOf(service, variable);
    }
  });

  it('writes no password, secret or token into any service, and makes every secret it mounts with deploy/make-secrets.sh', () => {
    for (const [name, service] of services) {
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        if (/PASSWORD|SECRET|TOKEN|ACCESS_KEY|(^|_)KEY$/i.test(variable)) expect([name, variable]).toEqual([name, expect.stringMatching(/_FILE$/)]);
        expect([name, variable, /:\/\/[^/@\s]*:[^/@\s]*@/.test(String(value))]).toEqual([name, variable, false]);
      }
      for (const secret of service.secrets ?? []) expect([name, secret, compose.secrets?.[secret]?.file]).toEqual([name, secret, expect.any(String)]);
    }
    for (const [secret, { file }] of Object.entries(compose.secrets ?? {})) {
      expect(path.resolve(dir, file!)).toBe(path.join(ROOT, 'deploy/secrets', secret));
      expect([secret, existsSync(path.join(secretsDir, secret))]).toEqual([secret, true]);
    }
  });

  it('shares one object store among the copies when there are several', () => {
    if (gateways.length < 2) return;
    for (const [name, service] of gateways) {
      const env = service.environment!;
      expect([name, env.S3_BUCKET]).toEqual([name, expect.any(String)]);
      expect(compose.services[new URL(env.S3_ENDPOINT!).hostname]).toBeDefined();
      expect([name, env.AWS_SHARED_CREDENTIALS_FILE, service.secrets]).toEqual([name, '/run/secrets/s3-credentials', expect.arrayContaining(['s3-credentials'])]);
    }
    expect(new Set(gateways.map(([, service]) => `${service.environment!.S3_ENDPOINT} ${service.environment!.S3_BUCKET}`)).size).toBe(1);
  });

  it('sends the pool through PgBouncer when there are several copies, and LISTEN straight to PostgreSQL', () => {
    for (const [name, service] of gateways) {
      const pool = new URL(secretValue(secretFileOf(service, 'DATABASE_URL')));
      if (gateways.length < 2) {
        expect([name, pool.hostname]).toEqual([name, 'postgres']);
        continue;
      }
      const listen = new URL(secretValue(secretFileOf(service, 'DATABASE_LISTEN_URL')));
      expect([name, pool.hostname, listen.hostname, listen.port]).toEqual([name, 'pgbouncer', 'postgres', '5432']);
      expect(pool.port).toBe(/^listen_port\s*=\s*(\d+)/m.exec(readFileSync(path.join(ROOT, 'deploy/pgbouncer/pgbouncer.ini'), 'utf8'))?.[1]);
      expect(compose.services.pgbouncer!.volumes).toContain('../pgbouncer/pgbouncer.ini:/etc/pgbouncer/pgbouncer.ini:ro');
      // The same user and password on both paths, and the one PostgreSQL was initialised with.
      expect([pool.username, pool.password]).toEqual([listen.username, listen.password]);
      expect(listen.password).toBe(secretValue('postgres-password'));
      expect(secretValue('pgbouncer-userlist')).toBe(`"${pool.username}" "${pool.password}"`);
    }
  });
});

describe('deploy/pgbouncer/pgbouncer.ini', () => {
  const ini = readFileSync(path.join(ROOT, 'deploy/pgbouncer/pgbouncer.ini'), 'utf8');
  const setting = (name: string) => new RegExp(`^${name}\\s*=\\s*(.*)$`, 'm').exec(ini)?.[1]?.trim();

  it('pools by transaction, takes the userlist from the mounted secret and lets node-postgres in', () => {
    expect(setting('pool_mode')).toBe('transaction');
    expect(setting('auth_file')).toBe('/run/secrets/pgbouncer-userlist');
    expect(
      setting('ignore_startup_parameters')
        ?.split(',')
        .map((name) => name.trim()),
    ).toEqual(expect.arrayContaining(['statement_timeout', 'extra_float_digits', 'options']));
  });
});

describeWhen(PGBOUNCER, 'pgbouncer is not installed (Debian package pgbouncer; .ci/run installs it)')('pgbouncer', () => {
  it('starts with deploy/pgbouncer/pgbouncer.ini (only the address and the secret file moved)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pgbouncer-deploy-'));
    chmodSync(dir, 0o755);
    const port = await findFreePort();
    const userlist = path.join(dir, 'userlist.txt');
    writeFileSync(userlist, `${secretValue('pgbouncer-userlist')}\n`, { mode: 0o644 });
    const ini = readFileSync(path.join(ROOT, 'deploy/pgbouncer/pgbouncer.ini'), 'utf8')
      .replace(/^listen_addr\s*=.*$/m, 'listen_addr = 127.0.0.1')
      .replace(/^listen_port\s*=.*$/m, `listen_port = ${port}`)
      .replace(/^auth_file\s*=.*$/m, `auth_file = ${userlist}`);
    writeFileSync(path.join(dir, 'pgbouncer.ini'), ini, { mode: 0o644 });
    // As root PgBouncer refuses to run unless told to switch user (-u).
    const { child } = await startDaemon('pgbouncer', PGBOUNCER!, [...(process.getuid?.() === 0 ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')], port, dir);
    expect(child.exitCode).toBeNull();
    await stopDaemon(child, dir);
  });
});

describeWhen(HAPROXY, 'haproxy is not installed (Debian package haproxy; .ci/run installs it)')('haproxy', () => {
  const cfg = readFileSync(path.join(ROOT, 'deploy/haproxy/haproxy.cfg'), 'utf8');
  const scale = STACKS[1]!.compose;

  it('accepts deploy/haproxy/haproxy.cfg (haproxy -c)', () => {
    const checked = spawnSync(HAPROXY!, ['-c', '-f', path.join(ROOT, 'deploy/haproxy/haproxy.cfg')], { encoding: 'utf8' });
    expect([checked.status, checked.stdout + checked.stderr]).toEqual([0, expect.stringContaining('Configuration file is valid')]);
  });

  it('balances over exactly the gateway copies of the scale stack, and answers its health check where compose asks', () => {
    const servers = [...cfg.matchAll(/^\s*server\s+\S+\s+([\w-]+):3000\s*$/gm)].map((match) => match[1]);
    const copies = Object.entries(scale.services)
      .filter(([, service]) => isGateway(STACKS[1]!.dir, service))
      .map(([name]) => name);
    expect(servers).toEqual(copies);
    const healthPort = /^\s*bind\s+:(\d+)\s*\n\s*monitor-uri\s+\/healthz/m.exec(cfg)?.[1];
    expect(JSON.stringify(scale.services.haproxy!.healthcheck!.test)).toContain(`/dev/tcp/127.0.0.1/${healthPort}`);
  });
});
