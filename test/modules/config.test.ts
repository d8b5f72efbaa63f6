import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('uses the embedded database on 127.0.0.1:3000 when nothing is set', () => {
    const config = loadConfig({});
    expect(config.http).toMatchObject({ host: '127.0.0.1', port: 3000, bodyLimitBytes: 1024 * 1024 });
    expect(config.database).toMatchObject({ mode: 'embedded', dataDir: './.data/postgres', port: 54329 });
    expect(config.graphql).toEqual({ graphiql: true, introspection: true });
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

  it('turns GraphiQL and introspection off in production unless asked for', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).graphql).toEqual({ graphiql: false, introspection: false });
    expect(loadConfig({ NODE_ENV: 'production', GRAPHIQL_ENABLED: 'true' }).graphql.graphiql).toBe(true);
  });

  it('returns a frozen object so nothing changes settings at run time', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.http)).toBe(true);
  });
});
