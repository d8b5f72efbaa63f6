import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ConfigError, environmentSchema, loadConfig, secretVariables } from '../../src/config.js';
import { configurationTable } from '../../src/config-reference.js';
import { describeVariables, exampleValue } from '../../src/config/problems.js';

describe('configuration', () => {
  it('uses the embedded database on 127.0.0.1:3000 when nothing is set', () => {
    const config = loadConfig({});
    expect(config.http).toMatchObject({ host: '127.0.0.1', port: 3000, bodyLimitBytes: 1024 * 1024 });
    expect(config.database).toMatchObject({ mode: 'embedded', dataDir: './.data/postgres', port: 54329 });
    expect(config.graphql).toEqual({ graphiql: true, introspection: true, persistedOperations: { requiredFor: [] }, figuresMaxAgeMs: 5000 });
  });

  it('uses DATABASE_URL when it is set', () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://u:p@db.example:5432/gw' });
    expect(config.database).toMatchObject({ mode: 'external', url: 'postgresql://u:p@db.example:5432/gw' });
  });

  it('reports every bad setting at once, each by name', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', REQUEST_BODY_LIMIT: 'huge', GRAPHIQL_ENABLED: 'maybe' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'DATABASE_URL', 'REQUEST_BODY_LIMIT', 'GRAPHIQL_ENABLED']) expect(problems).toContain(name);
  });

  it("names each bad variable, the value given and a good example, in words a person reads, not a validator's", () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DB_POOL_MAX: 'x', LOG_LEVEL: 'loud', REQUEST_BODY_LIMIT: '1gb', S3_ENDPOINT: 'minio' });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems).toEqual([
      'PORT: expected integer 0–65535, got "eighty"; e.g. PORT=3000',
      'LOG_LEVEL: expected one of `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`, got "loud"; e.g. LOG_LEVEL=info',
      'DB_POOL_MAX: expected integer 1–500, got "x"; e.g. DB_POOL_MAX=10',
      'REQUEST_BODY_LIMIT: must be a size such as 512kb or 1mb, got "1gb"; e.g. REQUEST_BODY_LIMIT=1mb',
      'S3_ENDPOINT: expected URL, got "minio"; e.g. S3_ENDPOINT=http://minio:9000',
    ]);
    expect((error as ConfigError).message).not.toMatch(/received NaN|Invalid input/);
  });

  it('reports a setting that involves several variables together with the bad values, not after they are fixed', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', HOST: '0.0.0.0' });
    } catch (caught) {
      error = caught;
    }
    const problems = (error as ConfigError).problems;
    expect(problems[0]).toBe('PORT: expected integer 0–65535, got "eighty"; e.g. PORT=3000');
    expect(problems[1]).toMatch(/^AUTH_MODE: 'none' .* is allowed only on a loopback HOST, and HOST is 0\.0\.0\.0/);
    expect(problems).toHaveLength(2);
  });

  it('never quotes a secret it refuses, nor the password of a URL', () => {
    let error: unknown;
    try {
      loadConfig({ JWT_SECRET: 'hunter2-but-short', DATABASE_URL: 'mysql://admin:pa55word@db.example/gw', AUTH_MODE: 'jwt' });
    } catch (caught) {
      error = caught;
    }
    const message = (error as ConfigError).message;
    expect(message).toContain('JWT_SECRET: must be at least 32 characters, got 17 characters (not shown); e.g. JWT_SECRET=$(openssl rand -hex 16)');
    expect(message).toContain('DATABASE_URL: must be a postgresql:// connection string, got "mysql://admin:***@db.example/gw"; e.g. DATABASE_URL=postgresql://');
    expect(message).not.toMatch(/hunter2|pa55word/);
  });

  it('gives every variable an example the variable itself accepts', () => {
    const shape = environmentSchema.shape as Record<string, { safeParse(value: unknown): { success: boolean } }>;
    const refused = [...describeVariables(environmentSchema)]
      .map(([name, { node, defaultValue }]) => [name, exampleValue(name, node, defaultValue)] as const)
      // A secret's example is a command that makes one.
      .filter(([name, example]) => !example.startsWith('$(openssl rand') && !shape[name]!.safeParse(example).success);
    expect(refused).toEqual([]);
  });

  it('turns GraphiQL and introspection off in production unless asked for', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).graphql).toMatchObject({ graphiql: false, introspection: false });
    expect(loadConfig({ NODE_ENV: 'production', GRAPHIQL_ENABLED: 'true' }).graphql.graphiql).toBe(true);
  });

  it('times requests out after 60 s, or after the slowest downstream it may wait for plus 5 s', () => {
    expect(loadConfig({}).http.requestTimeoutMs).toBe(60_000);
    expect(loadConfig({ QUERY_TIMEOUT_MS: '120000' }).http.requestTimeoutMs).toBe(125_000);
    expect(loadConfig({ PII_SERVICE_TIMEOUT_MS: '90000', QUERY_TIMEOUT_MS: '120000' }).http.requestTimeoutMs).toBe(125_000);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '2000', QUERY_TIMEOUT_MS: '120000' }).http.requestTimeoutMs).toBe(2_000);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '10' })).toThrow(/REQUEST_TIMEOUT_MS/);
  });

  it('reads who is bound to the persisted operations, and refuses selectors it does not know', () => {
    expect(loadConfig({ PERSISTED_OPERATIONS_REQUIRED_FOR: ' role:viewer , caller:apikey:grafana,*' }).graphql.persistedOperations).toEqual({
      requiredFor: ['role:viewer', 'caller:apikey:grafana', '*'],
    });
    expect(loadConfig({ PERSISTED_OPERATIONS_FILE: '/etc/gw/ops.json' }).graphql.persistedOperations).toEqual({ file: '/etc/gw/ops.json', requiredFor: [] });
    for (const bad of ['viewer', 'role:', 'group:x', 'role:a;caller:b']) {
      expect(() => loadConfig({ PERSISTED_OPERATIONS_REQUIRED_FOR: bad })).toThrow(/PERSISTED_OPERATIONS_REQUIRED_FOR: must be \* or a comma-separated list/);
    }
  });

  it('bounds strings and arrays in JSON bodies, and refuses an ingest batch longer than an array may be', () => {
    expect(loadConfig({}).jsonLimits).toEqual({ maxStringLength: 1_048_576, maxArrayLength: 10_000 });
    expect(loadConfig({ JSON_MAX_STRING_LENGTH: '4096', JSON_MAX_ARRAY_LENGTH: '500', INGEST_MAX_BATCH: '500' }).jsonLimits).toEqual({ maxStringLength: 4096, maxArrayLength: 500 });
    let error: unknown;
    try {
      // With another problem, to see both reported at once.
      loadConfig({ JSON_MAX_ARRAY_LENGTH: '1000', HOST: '0.0.0.0' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toContain(
      'INGEST_MAX_BATCH: 5000 is larger than JSON_MAX_ARRAY_LENGTH (1000); an ingest batch is a JSON array, so no call could carry that many events. ' +
        'Lower INGEST_MAX_BATCH or raise JSON_MAX_ARRAY_LENGTH.',
    );
    expect(problems.some((problem) => problem.startsWith('AUTH_MODE:'))).toBe(true);
    expect(() => loadConfig({ INGEST_MAX_BATCH: '20000' })).toThrow(/INGEST_MAX_BATCH: 20000 is larger than JSON_MAX_ARRAY_LENGTH \(10000\)/);
    expect(() => loadConfig({ JSON_MAX_STRING_LENGTH: '10', JSON_MAX_ARRAY_LENGTH: '0' })).toThrow(/JSON_MAX_STRING_LENGTH[\s\S]*JSON_MAX_ARRAY_LENGTH/);
  });

  it('returns a frozen object so nothing changes settings at run time', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.http)).toBe(true);
  });
});

describe('secrets given as files (<NAME>_FILE)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const secretFile = (name: string, content: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
  };
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    throw new Error('the configuration was accepted');
  };

  it('marks the credentials as secrets, and nothing that is not one', () => {
    expect([...secretVariables].sort()).toEqual(
      [
        'CONNECTOR_CONFIG_KEY',
        'DATABASE_LISTEN_URL',
        'DATABASE_URL',
        'GRAFANA_TOKEN',
        'JWT_SECRET',
        'METRICS_TOKEN',
        'OBJECT_STORE_SECRET',
        'PII_SERVICE_TOKEN',
        'QUERY_DATABASE_URL',
        'SESSION_SECRET',
        'SMTP_URL',
      ].sort(),
    );
  });

  it('reads every secret from the file its _FILE variable names, without the trailing line break', () => {
    const key = 'ab'.repeat(32);
    const config = loadConfig({
      HOST: '0.0.0.0',
      AUTH_MODE: 'jwt',
      JWT_SECRET_FILE: secretFile('jwt', `${'s'.repeat(40)}\n`),
      JWT_ISSUER: 'https://issuer.example',
      JWT_AUDIENCE: 'gateway',
      DATABASE_URL_FILE: secretFile('db', 'postgresql://gateway:p%40ss@pgbouncer:6432/gateway\r\n'),
      DATABASE_LISTEN_URL_FILE: secretFile('listen', 'postgresql://gateway:p%40ss@postgres:5432/gateway'),
      CONNECTOR_CONFIG_KEY_FILE: secretFile('key', `${key}\n`),
      SMTP_URL_FILE: secretFile('smtp', 'smtp://user:pw@mail.example:587\n'),
      METRICS_TOKEN_FILE: secretFile('metrics', 'm'.repeat(20)),
    });
    expect(config.auth.jwt?.secret).toBe('s'.repeat(40));
    expect(config.database).toMatchObject({ mode: 'external', url: 'postgresql://gateway:p%40ss@pgbouncer:6432/gateway' });
    expect(config.scale.listenUrl).toBe('postgresql://gateway:p%40ss@postgres:5432/gateway');
    expect(config.datasets.connectorKey).toEqual({ key });
    expect(config.alerting.smtp).toEqual({ url: 'smtp://user:pw@mail.example:587' });
    expect(config.http.metricsToken).toBe('m'.repeat(20));
  });

  it('checks a value read from a file as it checks the variable, naming the file and never the value', () => {
    const problems = problemsOf({ HOST: '0.0.0.0', AUTH_MODE: 'jwt', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a', JWT_SECRET_FILE: secretFile('short', 'too-short-secret\n') });
    expect(problems).toContain(
      `JWT_SECRET: must be at least 32 characters, got 16 characters (not shown); e.g. JWT_SECRET=$(openssl rand -hex 16) (read from JWT_SECRET_FILE, ${path.join(dir, 'short')})`,
    );
    expect(problems.join('\n')).not.toContain('too-short-secret');
  });

  it('refuses both forms at once, a missing file and an empty one, each reported with the other problems', () => {
    const problems = problemsOf({
      DATABASE_URL: 'postgresql://a@b/c',
      DATABASE_URL_FILE: secretFile('both', 'postgresql://a@b/c'),
      JWT_SECRET_FILE: path.join(dir, 'nowhere'),
      METRICS_TOKEN_FILE: secretFile('empty', '\n'),
      PORT: 'eighty',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'DATABASE_URL and DATABASE_URL_FILE are both set: give the secret one way',
        `JWT_SECRET_FILE: cannot read ${path.join(dir, 'nowhere')} (ENOENT)`,
        `METRICS_TOKEN_FILE: ${path.join(dir, 'empty')} is empty`,
      ]),
    );
    expect(problems.some((problem) => problem.startsWith('PORT:'))).toBe(true);
  });

  it('leaves _FILE of a variable that is not a secret alone (it is not a variable of the gateway)', () => {
    expect(loadConfig({ PORT_FILE: secretFile('port', '4000') }).http.port).toBe(3000);
  });

  it('says in the configuration reference which variables may be given as a file', () => {
    const table = configurationTable();
    for (const name of secretVariables) expect(table).toContain(`Secret: or \`${name}_FILE\`, a file holding it.`);
    expect(table.match(/_FILE`, a file holding it/g)).toHaveLength(secretVariables.length);
  });
});
