// The production image and the compose file cannot be built or started here (no Docker engine), so
// their promises are checked on the files themselves: the image runs compiled code on the current
// Node LTS as a user that cannot change it, ships no tests, benchmarks or sources, and keeps its
// data in a volume; compose pins its images, gives links the host can open, and wires Kafka to Druid.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

/** Instructions of the Dockerfile (continuation lines joined, comments dropped), by stage. */
function stages(): { from: string; instructions: string[] }[] {
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const result: { from: string; instructions: string[] }[] = [];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) result.push({ from: line, instructions: [] });
    else result.at(-1)?.instructions.push(line);
  }
  return result;
}

describe('Dockerfile', () => {
  const all = stages();
  const runtime = all.at(-1)!;
  const env = (name: string) => new RegExp(`${name}=(\\S+)`).exec(runtime.instructions.filter((line) => line.startsWith('ENV')).join(' '))?.[1];

  it('builds and runs on Node 24, the current LTS', () => {
    expect(all.map((stage) => /FROM\s+node:(\d+)/.exec(stage.from)?.[1])).toEqual(['24', '24']);
  });

  it('runs the compiled gateway, not TypeScript through tsx', () => {
    const cmd = runtime.instructions.find((line) => line.startsWith('CMD'))!;
    expect(cmd).toContain('dist/src/main.js');
    expect(cmd).not.toContain('tsx');
    expect(all[0]!.instructions.join('\n')).toMatch(/npm run build/);
  });

  it("runs the gateway with npm start's node flags (the heap settings the memory target is measured with)", () => {
    const cmd = runtime.instructions.find((line) => line.startsWith('CMD'))!;
    const args = JSON.parse(cmd.slice('CMD'.length)) as string[];
    const startScript = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    expect(`exec ${args.join(' ')}`).toBe(startScript);
    expect(args).toContain('--heap-growing-percent=50');
  });

  it('ships no tests, benchmarks, sources or scripts, and leaves the app files to root', () => {
    const copies = runtime.instructions.filter((line) => line.startsWith('COPY'));
    const sources = copies.map((line) =>
      line
        .split(/\s+/)
        .filter((part) => !part.startsWith('--'))
        .slice(1, -1)
        .join(' '),
    );
    for (const source of sources) expect(source).not.toMatch(/\/app\/(test|bench|src|rest|scripts)\b|^\/app\/?$|^\.$/);
    for (const copy of copies) expect(copy).not.toMatch(/--chown/);
    expect(runtime.instructions).toContain('USER node');
  });

  it('keeps DATA_DIR in a volume the runtime user owns', () => {
    const dataDir = env('DATA_DIR');
    expect(dataDir).toBe('/data');
    expect(runtime.instructions.find((line) => line.startsWith('VOLUME'))).toContain(dataDir);
    expect(runtime.instructions.join('\n')).toMatch(new RegExp(`chown node:node ${dataDir}`));
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, { image?: string; environment?: Record<string, string>; ports?: string[] }>;
  };
  const gateway = compose.services.gateway!.environment!;

  it('pins every image to a version', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (!service.image) continue;
      expect([name, /:(?!latest$)[\w.-]+$/.test(service.image)]).toEqual([name, true]);
    }
  });

  it('gives pre-signed links an address the host can open, which MinIO publishes', () => {
    const publicEndpoint = new URL(gateway.S3_PUBLIC_ENDPOINT!);
    expect(publicEndpoint.hostname).toBe('localhost');
    expect(compose.services.minio!.ports!.map((port) => port.split(':')[0])).toContain(publicEndpoint.port);
  });

  it('connects ingestion (Kafka) to the query engine (Druid) through the gateway', () => {
    expect(gateway.KAFKA_BROKERS).toBe('kafka:9092');
    expect(gateway.DRUID_URL).toMatch(/^http:\/\/druid-router:8888$/);
    expect(compose.services['druid-middlemanager']).toBeDefined();
  });
});
