// The parts of access control that need no server: the AUTH_MODE rules of the configuration, the
// permission policy file, the root-field API ids, the links guarded from the schema, the token
// bucket and the session cookie format.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { execute as graphqlExecute, parse } from 'graphql';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { AccessControl } from '../../src/auth/access.js';
import { guardLinks } from '../../src/auth/guard.js';
import { NODE_READ_API_IDS } from '../../src/graphql/nodes.js';
import { restEndpoints } from '../../rest/endpoints.js';
import { fieldApiIds, PUBLIC_API_ID, rootFieldsOf } from '../../src/auth/field-api-ids.js';
import { loadPolicy, parsePolicy, PolicyError } from '../../src/auth/policy.js';
import { RateLimiter } from '../../src/auth/rate-limit.js';
import { cookieValue, sessionUser, signSessionId, unsignSessionId } from '../../src/auth/session.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { COUNT_COST, priceOperation } from '../../src/graphql/limits.js';
import { buildSchema, ROOT_FIELD_PERMISSIONS } from '../../src/graphql/schema.js';

function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('AUTH_MODE in the configuration', () => {
  it('is none by default, on the default loopback HOST', () => {
    const config = loadConfig({});
    expect(config.auth.mode).toBe('none');
    expect(config.rateLimits.general.perSecond).toBe(0);
  });

  it.each(['127.0.0.1', '127.1.2.3', '::1', 'localhost'])('allows none on the loopback address %s', (host) => {
    expect(configProblems({ HOST: host })).toEqual([]);
  });

  it.each(['0.0.0.0', '::', '10.0.0.5', 'gateway.example.com'])('refuses to start with none on %s, and says why', (host) => {
    const problems = configProblems({ HOST: host });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`AUTH_MODE: 'none'`);
    expect(problems[0]).toContain('loopback');
    expect(problems[0]).toContain(host);
  });

  it('lets jwt and session listen on any address', () => {
    expect(configProblems({ HOST: '0.0.0.0', AUTH_MODE: 'jwt', JWT_SECRET: 'x'.repeat(32), JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' })).toEqual([]);
    expect(configProblems({ HOST: '0.0.0.0', AUTH_MODE: 'session', SESSION_SECRET: 's' })).toEqual([]);
  });

  it('reports every missing jwt setting at once', () => {
    const problems = configProblems({ AUTH_MODE: 'jwt' });
    expect(problems.join('\n')).toMatch(/exactly one of JWT_SECRET, JWT_PUBLIC_KEY_FILE, JWT_JWKS_FILE/);
    expect(problems.join('\n')).toMatch(/JWT_ISSUER: required/);
    expect(problems.join('\n')).toMatch(/JWT_AUDIENCE: required/);
  });

  it('refuses a JWT secret shorter than 32 characters and two key sources at once', () => {
    expect(configProblems({ AUTH_MODE: 'jwt', JWT_SECRET: 'short', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' }).join()).toMatch(/JWT_SECRET: must be at least 32/);
    expect(configProblems({ AUTH_MODE: 'jwt', JWT_SECRET: 'x'.repeat(32), JWT_JWKS_FILE: '/k.json', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' }).join()).toMatch(/got JWT_SECRET and JWT_JWKS_FILE/);
  });

  it('needs SESSION_SECRET in session mode', () => {
    expect(configProblems({ AUTH_MODE: 'session' }).join()).toMatch(/SESSION_SECRET: required/);
  });

  it('turns rate limits on by default once callers are authenticated, each budget on its own', () => {
    const config = loadConfig({ AUTH_MODE: 'session', SESSION_SECRET: 's', RATE_LIMIT_INGEST_RPS: '5' });
    expect(config.rateLimits).toEqual({ general: { perSecond: 100, burst: 200 }, ingest: { perSecond: 5, burst: 10 } });
  });
});

describe('the permission policy', () => {
  const policy = loadPolicy();

  it('holds the original role groups', () => {
    expect(policy.roles.sort()).toEqual(['admin', 'dataset_creator', 'dataset_manager', 'ingestor', 'operations_admin', 'viewer']);
    expect(policy.allows(['ingestor'], ['api.data.in'])).toBe(true);
    expect(policy.allows(['ingestor'], ['api.datasets.read'])).toBe(false);
    expect(policy.allows(['viewer'], ['api.datasets.read'])).toBe(true);
    expect(policy.allows(['viewer'], ['api.datasets.import'])).toBe(false);
    expect(policy.allows(['dataset_creator'], ['api.datasets.status-transition'])).toBe(false);
    expect(policy.allows(['dataset_manager'], ['api.datasets.status-transition'])).toBe(true);
    expect(policy.allows(['operations_admin'], ['api.alert.silence.create'])).toBe(true);
    expect(policy.allows(['operations_admin'], ['api.query.template.create'])).toBe(false);
    expect(policy.allows(['admin'], ['anything.at.all'])).toBe(true);
    expect(policy.allows(['no-such-role'], ['api.datasets.read'])).toBe(false);
    expect(policy.allows([], ['api.datasets.read'])).toBe(false);
  });

  it('names the roles that may call an API id', () => {
    expect(policy.rolesFor(['api.datasets.status-transition'])).toEqual(['dataset_manager', 'admin']);
  });

  it('matches prefixes ending in *', () => {
    const custom = parsePolicy(JSON.stringify({ roles: { ops: ['alerts'] }, groups: { alerts: ['api.alert.*'] } }), 'custom.json');
    expect(custom.allows(['ops'], ['api.alert.silence.create'])).toBe(true);
    expect(custom.allows(['ops'], ['api.metric.add'])).toBe(false);
  });

  it('refuses a file naming a group it does not define, or an API id that is not one, listing every problem', () => {
    expect(() => parsePolicy(JSON.stringify({ roles: { a: ['missing'] }, groups: {} }), 'p.json')).toThrow(/roles\.a: no group named "missing"/);
    expect(() => parsePolicy(JSON.stringify({ roles: { a: ['g'] }, groups: { g: ['api data in'] } }), 'p.json')).toThrow(PolicyError);
    expect(() => parsePolicy('{', 'p.json')).toThrow(/not valid JSON/);
    expect(() => loadPolicy('/nonexistent/permissions.json')).toThrow(/cannot be read/);
  });
});

describe('root field API ids', () => {
  const schema = buildSchema('test');
  const { byField, undeclared, restMismatches } = fieldApiIds(schema, ROOT_FIELD_PERMISSIONS, restEndpoints);

  it('reads the root fields an operation runs, through fragments', () => {
    expect(rootFieldsOf('query A { a { x } ...F } fragment F on Query { b }')).toEqual(['Query.a', 'Query.b']);
    expect(rootFieldsOf('mutation M { m }')).toEqual(['Mutation.m']);
  });

  it('gives each field the API ids its module declares, and a write a write permission', () => {
    expect(byField.get('Query.template')).toEqual(['api.query.template.read']);
    expect(byField.get('Mutation.ingest')).toEqual(['api.data.in']);
    expect(byField.get('Mutation.editDataset')).toEqual(['api.datasets.update']);
    expect(byField.get('Query.version')).toEqual([PUBLIC_API_ID]);
  });

  it('declares every root field of the schema, and every REST entry runs only fields its API id admits', () => {
    expect(undeclared).toEqual([]);
    expect(restMismatches).toEqual([]);
  });

  it('names a REST entry whose API id does not admit a field it runs, and a field no table declares', () => {
    const entry = restEndpoints.find((endpoint) => endpoint.apiId === 'api.datasets.read')!;
    const readOnlyEdit = { ...entry, operationApiIds: {} };
    expect(fieldApiIds(schema, ROOT_FIELD_PERMISSIONS, [readOnlyEdit]).restMismatches).toEqual([
      'GET /v2/datasets/read/:dataset_id (api.datasets.read, operation edit) runs Mutation.editDataset, which admits api.datasets.update',
    ]);
    const { 'Query.templates': _dropped, ...partial } = ROOT_FIELD_PERMISSIONS;
    expect(fieldApiIds(schema, partial, []).undeclared).toEqual(['Query.templates']);
  });
});

describe('the token bucket', () => {
  it('allows a burst, then refuses with the seconds until the next token, and refills with time', () => {
    let now = 0;
    const limiter = new RateLimiter({ general: { perSecond: 2, burst: 3 }, ingest: { perSecond: 0, burst: 1 } }, () => now);
    expect([1, 2, 3].map(() => limiter.take('general', 'a').allowed)).toEqual([true, true, true]);
    expect(limiter.take('general', 'a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take('general', 'b').allowed).toBe(true);
    now += 500;
    expect(limiter.take('general', 'a').allowed).toBe(true);
    expect(limiter.take('general', 'a').allowed).toBe(false);
  });

  it('keeps ingestion on a budget of its own, and a budget of 0 is off', () => {
    let now = 0;
    const limiter = new RateLimiter({ general: { perSecond: 0, burst: 1 }, ingest: { perSecond: 1, burst: 1 } }, () => now);
    expect(limiter.take('ingest', 'a').allowed).toBe(true);
    expect(limiter.take('ingest', 'a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    for (let i = 0; i < 100; i += 1) expect(limiter.take('general', 'a').allowed).toBe(true);
    now += 1000;
    expect(limiter.take('ingest', 'a').allowed).toBe(true);
  });

  it('forgets idle callers when many are tracked', () => {
    let now = 0;
    const limiter = new RateLimiter({ general: { perSecond: 1000, burst: 1 }, ingest: { perSecond: 1, burst: 1 } }, () => now);
    for (let i = 0; i < 10_000; i += 1) limiter.take('general', `caller-${i}`);
    now += 10_000;
    limiter.take('general', 'one-more');
    expect(limiter.size).toBeLessThan(10);
  });
});

describe('the session cookie', () => {
  it("signs and reads express-session's format", () => {
    const expected = `s:abc.${createHmac('sha256', 'secret').update('abc').digest('base64').replace(/=+$/, '')}`;
    expect(signSessionId('abc', 'secret')).toBe(expected);
    expect(unsignSessionId(expected, ['old', 'secret'])).toBe('abc');
    expect(unsignSessionId(expected, ['other'])).toBeUndefined();
    expect(unsignSessionId(`${expected.slice(0, -1)}x`, ['secret'])).toBeUndefined();
    expect(unsignSessionId('abc', ['secret'])).toBeUndefined();
  });

  it('finds the cookie among others, URL-decoded', () => {
    expect(cookieValue('a=1; connect.sid=s%3Aabc.def; b=2', 'connect.sid')).toBe('s:abc.def');
    expect(cookieValue('a=1', 'connect.sid')).toBeUndefined();
    expect(cookieValue('connect.sid=%E0%A4%A', 'connect.sid')).toBe('%E0%A4%A');
  });

  it('reads the user and roles of passport, a user object or the document itself, and refuses a user without roles', () => {
    expect(sessionUser({ passport: { user: { id: 'u1', roles: ['viewer'] } } })).toEqual({ id: 'u1', roles: ['viewer'] });
    expect(sessionUser({ user: { sub: 'u2', roles: [] } })).toEqual({ id: 'u2', roles: [] });
    expect(sessionUser({ userId: 'u3', roles: ['admin'] })).toEqual({ id: 'u3', roles: ['admin'] });
    expect(sessionUser({ passport: { user: { id: 'u4' } } })).toBe('the session user has no roles');
    expect(sessionUser({ cookie: {} })).toBe('the session holds no user');
    expect(sessionUser(null)).toBe('the session holds no user');
  });
});

describe('operation cost', () => {
  const schema = buildSchema('test');
  const cost = (query: string, variables?: Record<string, unknown>) => {
    const document = parse(query);
    return priceOperation(schema, document, document.definitions[0] as never, variables).cost;
  };

  it('counts a list selection once per item of the page asked for', () => {
    expect(cost('{ version }')).toBe(1);
    // templates + nodes + 10 × (id + name)
    expect(cost('{ templates(first: 10) { nodes { id name } } }')).toBe(1 + 1 + 10 * 2);
    expect(cost('query Q($n: Int) { templates(first: $n) { nodes { id } } }', { n: 1000 })).toBe(1 + 1 + 1000 * 1);
    // edges { node { ... } }: each edge costs its node too.
    expect(cost('{ templates(first: 10) { edges { cursor node { id } } } }')).toBe(1 + 1 + 10 * (1 + 1 + 1));
  });

  it("counts a connection's own fields once, whatever the page", () => {
    // templates + totalCount (a count: COUNT_COST on a table of unknown size) + pageInfo { 2 fields }
    expect(cost('{ templates(first: 500) { totalCount pageInfo { hasNextPage endCursor } } }')).toBe(1 + COUNT_COST + (1 + 2));
  });

  it('takes the argument default when the page size is not given', () => {
    expect(cost('{ templates { nodes { id } } }')).toBe(1 + 1 + 100 * 1);
  });
});

describe('links', () => {
  const policy = loadPolicy();
  const control = new AccessControl(policy, { take: () => ({ allowed: true }), settings: { general: { perSecond: 0, burst: 1 }, ingest: { perSecond: 0, burst: 1 } } });

  it("are found in the schema: every field of a non-root type whose records (or a connection's items) need their own type's rights", () => {
    const links = guardLinks(buildSchema('test'), NODE_READ_API_IDS);
    expect(links).toEqual(expect.arrayContaining(['Dataset.templates', 'Dataset.templatePage', 'Dataset.alertRules', 'AlertRule.channels', 'QueryTemplate.datasets', 'DatasetChange.dataset']));
    expect(links.filter((coordinate) => coordinate.startsWith('Query.') || coordinate.startsWith('Subscription.'))).toEqual([]);
  });

  it('refuse, as FORBIDDEN, a link added later to a type the caller may not read, with no resolver of its own checking', async () => {
    const schema = makeExecutableSchema({
      typeDefs: 'type Query { team: Team } type Team { name: String secret: Secret secrets: SecretConnection } type Secret { code: String } type SecretConnection { totalCount: Int }',
      resolvers: { Query: { team: () => ({ name: 'a', secret: { code: 'hidden' }, secrets: { totalCount: 3 } }) } },
    });
    guardLinks(schema, { Secret: ['api.query.template.read'] });
    expect(guardLinks(schema, { Secret: ['api.query.template.read'] })).toEqual(['Team.secret']);
    const asRole = (role: string) =>
      graphqlExecute({ schema, document: parse('{ team { name secret { code } } }'), contextValue: { access: control.forRequest({ caller: { id: 'u', roles: [role], via: 'jwt' } }, 'local') } });
    const viewer = await asRole('viewer');
    expect(viewer.data).toEqual({ team: { name: 'a', secret: null } });
    expect((viewer.errors?.[0]?.originalError as { code?: string } | undefined)?.code).toBe('FORBIDDEN');
    expect((await asRole('dataset_creator')).data).toEqual({ team: { name: 'a', secret: { code: 'hidden' } } });
  });
});
