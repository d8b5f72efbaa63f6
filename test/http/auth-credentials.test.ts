// Each kind of credential, checked in depth on one endpoint: tokens signed with a public key (PEM)
// or a JWKS, every claim that must hold, the algorithm confusions, sessions that ended or carry no
// roles, API keys revoked or expired; who the caller is, as services record it.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient as createWsClient } from 'graphql-ws';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import WebSocket from 'ws';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import { envelope, SQL_QUERY } from '../support/api.js';
import { apiKey, AUDIENCE, ISSUER, JWT_ENV, JWT_SECRET, SESSION_ENV, sessionCookie, token } from '../support/auth.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let folder: string;
let hs: TestGateway;
let rs: TestGateway;
let jwks: TestGateway;
let session: TestGateway;
/** HS256 with no clock tolerance: a token is refused the second its exp passes. */
let exact: TestGateway;
let rsaKeys: Awaited<ReturnType<typeof generateKeyPair>>;
let ecKeys: Awaited<ReturnType<typeof generateKeyPair>>;

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'gateway-keys-'));
  rsaKeys = await generateKeyPair('RS256');
  ecKeys = await generateKeyPair('ES256');
  await writeFile(path.join(folder, 'rsa.pem'), await exportSPKI(rsaKeys.publicKey));
  await writeFile(path.join(folder, 'jwks.json'), JSON.stringify({ keys: [{ ...(await exportJWK(ecKeys.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' }] }));
  const common = { AUTH_MODE: 'jwt', JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE, RATE_LIMIT_RPS: '100000', RATE_LIMIT_INGEST_RPS: '100000' };
  [hs, rs, jwks, session, exact] = await Promise.all([
    startTestGateway(JWT_ENV),
    startTestGateway({ ...common, JWT_PUBLIC_KEY_FILE: path.join(folder, 'rsa.pem') }),
    startTestGateway({ ...common, JWT_JWKS_FILE: path.join(folder, 'jwks.json') }),
    startTestGateway(SESSION_ENV),
    startTestGateway({ ...JWT_ENV, JWT_CLOCK_TOLERANCE_SECONDS: '0' }),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([hs?.stop(), rs?.stop(), jwks?.stop(), session?.stop(), exact?.stop()]);
  await rm(folder, { recursive: true, force: true });
});

async function signed(key: CryptoKey | Uint8Array, alg: string, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ roles: ['viewer'], ...claims })
    .setProtectedHeader({ alg, ...header })
    .setSubject('key-user')
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(key);
}

function listDatasets(gw: TestGateway, headers: Record<string, string>) {
  let request = gw.http.post('/v2/datasets/list');
  for (const [name, value] of Object.entries(headers)) request = request.set(name, value);
  return request.send(envelope('api.datasets.list', {}));
}

const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });

describe('bearer tokens signed with a public key', () => {
  it('accepts an RS256 token that verifies with JWT_PUBLIC_KEY_FILE', async () => {
    expect((await listDatasets(rs, bearer(await signed(rsaKeys.privateKey, 'RS256')))).status).toBe(200);
  });

  it('accepts an ES256 token whose kid is in JWT_JWKS_FILE', async () => {
    expect((await listDatasets(jwks, bearer(await signed(ecKeys.privateKey, 'ES256', {}, { kid: 'ec-1' })))).status).toBe(200);
  });

  it('refuses a token signed by another key, and an HS256 token made with the public key as its secret', async () => {
    const other = await generateKeyPair('RS256');
    expect((await listDatasets(rs, bearer(await signed(other.privateKey, 'RS256')))).body.error.message).toMatch(/signature does not verify/);
    const pem = new TextEncoder().encode(await exportSPKI(rsaKeys.publicKey));
    const confused = await listDatasets(rs, bearer(await signed(pem, 'HS256')));
    expect(confused.status).toBe(401);
    expect(confused.body.error.message).toMatch(/algorithm is not accepted/);
  });

  it('refuses an unsigned token (alg none)', async () => {
    const unsecured = new UnsecuredJWT({ roles: ['admin'] }).setSubject('x').setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('10m').encode();
    for (const gw of [hs, rs, jwks]) expect((await listDatasets(gw, bearer(unsecured))).status).toBe(401);
  });

  it('refuses a JWKS token with an unknown kid', async () => {
    const response = await listDatasets(jwks, bearer(await signed(ecKeys.privateKey, 'ES256', {}, { kid: 'other' })));
    expect(response.status).toBe(401);
  });
});

describe('the claims of a token', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const secret = new TextEncoder().encode(JWT_SECRET);

  it.each([
    ['another issuer', { issuer: 'https://elsewhere' }, /iss claim/],
    ['another audience', { audience: 'someone-else' }, /aud claim/],
    ['an expiry in the past', { expiresIn: -120 }, /expired/],
  ])('refuses %s', async (_what, options, message) => {
    const response = await listDatasets(hs, bearer(await token({ roles: ['viewer'], ...options })));
    expect(response.status).toBe(401);
    expect(response.body.error.message).toMatch(message);
  });

  it('refuses a token once its expiry has passed, although the same token was admitted (and kept) before', async () => {
    const exp = now() + 3;
    const jwt = await new SignJWT({ roles: ['viewer'] }).setProtectedHeader({ alg: 'HS256' }).setSubject('short').setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime(exp).sign(secret);
    for (let call = 0; call < 3; call++) expect((await listDatasets(exact, bearer(jwt))).status).toBe(200);
    await sleep(exp * 1000 - Date.now() + 50);
    const refused = await listDatasets(exact, bearer(jwt));
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/expired/);
  });

  it('refuses a token without an expiry', async () => {
    const jwt = await new SignJWT({ roles: ['viewer'] }).setProtectedHeader({ alg: 'HS256' }).setSubject('u').setIssuer(ISSUER).setAudience(AUDIENCE).sign(secret);
    expect((await listDatasets(hs, bearer(jwt))).body.error.message).toMatch(/no expiry/);
  });

  it('refuses a token not valid yet, a roles claim that is not a list, and a token without a subject', async () => {
    const future = await new SignJWT({ roles: ['viewer'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('u')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setNotBefore(now() + 3600)
      .setExpirationTime(now() + 7200)
      .sign(secret);
    expect((await listDatasets(hs, bearer(future))).body.error.message).toMatch(/not valid yet/);
    expect((await listDatasets(hs, bearer(await token({ claims: { roles: 'admin' }, roles: null })))).body.error.message).toMatch(/array of role names/);
    const anonymous = await new SignJWT({ roles: ['viewer'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime(now() + 600)
      .sign(secret);
    expect((await listDatasets(hs, bearer(anonymous))).body.error.message).toMatch(/no subject/);
  });

  it('refuses a bearer value that is not a JWT, and an Authorization header that is not Bearer, quickly and in the envelope', async () => {
    for (const authorization of ['Bearer not-a-jwt', 'Bearer a.b.c', `Bearer ${'x'.repeat(9000)}`, 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const response = await listDatasets(hs, { authorization });
      expect([authorization.slice(0, 20), response.status, response.body.error.code]).toEqual([authorization.slice(0, 20), 401, 'UNAUTHENTICATED']);
    }
  });

  it('records the token subject as the author of what the caller creates', async () => {
    const jwt = await token({ sub: 'alice@example.com', roles: ['dataset_creator'] });
    const created = await hs.http
      .post('/v2/template/create')
      .set(bearer(jwt))
      .send(envelope('api.query.template.create', { template_name: 'By Alice', query_type: 'sql', query: SQL_QUERY }));
    expect(created.status).toBe(200);
    const read = await hs.http.get('/v2/template/read/by_alice').set(bearer(jwt));
    expect(read.body.result.created_by).toBe('alice@example.com');
  });
});

/** What a caller sees at one door: the answer it asked for, or the refusal's code (and HTTP status where there is one). */
type DoorOutcome = { answered: true } | { answered: false; code: string; status?: number };

/**
 * Each door asking the most open thing it serves: GraphQL's public `version` (POST, and GET as a
 * browser or a CDN sends it), a REST list, a subscription over WebSocket and over SSE.
 */
const DOORS: Record<string, (headers: Record<string, string>) => Promise<DoorOutcome>> = {
  'GraphQL POST /graphql': async (headers) => graphqlOutcome(await hs.http.post('/graphql').set(headers).send({ query: '{ version }' })),
  'GraphQL GET /graphql': async (headers) =>
    graphqlOutcome(
      await hs.http
        .get('/graphql')
        .query({ query: '{ version }' })
        .set({ 'apollo-require-preflight': 'true', accept: 'application/json', ...headers }),
    ),
  'REST /v2/datasets/list': async (headers) => {
    const response = await listDatasets(hs, headers);
    return response.status === 200 ? { answered: true } : { answered: false, code: response.body.error.code as string, status: response.status };
  },
  'graphql-ws': (headers) =>
    new Promise((resolve) => {
      const client = createWsClient({
        url: `${hs.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: headers,
        lazy: false,
        retryAttempts: 0,
        // The refusal is read from the close code below; the client would print it too.
        onNonLazyError: () => undefined,
        on: {
          // Resolved first: the close that dispose() then makes changes nothing.
          connected: () => {
            resolve({ answered: true });
            void client.dispose();
          },
          closed: (event) => resolve({ answered: false, code: `close ${(event as { code: number }).code}` }),
        },
      });
    }),
  'graphql-sse': async (headers) => {
    const response = await fetch(`${hs.url}/graphql/stream`, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { datasetChanged { datasetId } }' }),
      signal: AbortSignal.timeout(10_000),
    });
    if (response.status === 200) {
      await response.body?.cancel();
      return { answered: true };
    }
    return { answered: false, code: ((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code, status: response.status };
  },
};

function graphqlOutcome(response: { status: number; body: { data?: { version?: string }; errors?: { extensions?: { code?: string } }[] } }): DoorOutcome {
  if (response.body.data?.version) return { answered: true };
  return { answered: false, code: response.body.errors?.[0]?.extensions?.code ?? `HTTP ${response.status}`, status: response.status };
}

describe('a credential that does not hold, at every door and whatever is asked', () => {
  const badCredentials: [string, () => Promise<Record<string, string>>][] = [
    ['a token signed with another secret', async () => bearer(await token({ roles: ['viewer'], secret: 'another-secret-of-at-least-32-characters!' }))],
    ['an expired token', async () => bearer(await token({ roles: ['viewer'], expiresIn: -120 }))],
    ['a bearer value that is not a JWT', async () => ({ authorization: 'Bearer not-a-jwt' })],
    ['an API key the gateway does not know', async () => ({ 'x-api-key': `dpg_${'A'.repeat(43)}` })],
  ];

  it.each(badCredentials)('refuses %s with 401 UNAUTHENTICATED (close 4403 on a WebSocket), never as an anonymous caller', async (_what, credential) => {
    const headers = await credential();
    const seen: Record<string, DoorOutcome> = {};
    for (const [door, ask] of Object.entries(DOORS)) seen[door] = await ask(headers);
    expect(seen).toEqual({
      'GraphQL POST /graphql': { answered: false, code: 'UNAUTHENTICATED', status: 401 },
      'GraphQL GET /graphql': { answered: false, code: 'UNAUTHENTICATED', status: 401 },
      'REST /v2/datasets/list': { answered: false, code: 'UNAUTHENTICATED', status: 401 },
      'graphql-ws': { answered: false, code: 'close 4403' },
      'graphql-sse': { answered: false, code: 'UNAUTHENTICATED', status: 401 },
    });
  });

  it('answers the same calls for a token that holds, and the public ones for a caller who sent no credential', async () => {
    const valid = bearer(await token({ roles: ['viewer'] }));
    const seen: Record<string, [DoorOutcome, DoorOutcome]> = {};
    for (const [door, ask] of Object.entries(DOORS)) seen[door] = [await ask(valid), await ask({})];
    expect(seen).toEqual({
      'GraphQL POST /graphql': [{ answered: true }, { answered: true }],
      'GraphQL GET /graphql': [{ answered: true }, { answered: true }],
      'REST /v2/datasets/list': [{ answered: true }, { answered: false, code: 'UNAUTHENTICATED', status: 401 }],
      // The subscription transports take no anonymous caller.
      'graphql-ws': [{ answered: true }, { answered: false, code: 'close 4403' }],
      'graphql-sse': [{ answered: true }, { answered: false, code: 'UNAUTHENTICATED', status: 401 }],
    });
  });
});

describe('session cookies', () => {
  it('admit a live session and refuse one that has expired or was never stored', async () => {
    expect((await listDatasets(session, { cookie: await sessionCookie(session, ['viewer']) })).status).toBe(200);
    const ended = await listDatasets(session, { cookie: await sessionCookie(session, ['viewer'], { expiresInSeconds: -10 }) });
    expect(ended.status).toBe(401);
    expect(ended.body.error.message).toMatch(/ended or does not exist/);
  });

  it('refuse a session whose user has no roles', async () => {
    const response = await listDatasets(session, { cookie: await sessionCookie(session, null) });
    expect(response.status).toBe(401);
    expect(response.body.error.message).toMatch(/no roles/);
  });

  it('refuse an unsigned cookie value without asking the database', async () => {
    const response = await listDatasets(session, { cookie: `connect.sid=${randomUUID()}` });
    expect(response.status).toBe(401);
    expect(response.body.error.message).toMatch(/not signed/);
  });

  it('refuse a cross-site request (an Origin of another site) with 403, and admit the same site and server-side callers', async () => {
    const cookie = await sessionCookie(session, ['viewer']);
    const crossSite = await listDatasets(session, { cookie, origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.code).toBe('FORBIDDEN');
    const host = new URL(session.url).host;
    expect((await listDatasets(session, { cookie, origin: `http://${host}` })).status).toBe(200);
    expect((await listDatasets(session, { cookie })).status).toBe(200);
  });

  it('refuse a cross-site GET a page makes the browser send without an Origin (a link, a redirect, an <img>), as the publish routes change state', async () => {
    const cookie = await sessionCookie(session, ['admin']);
    const channel = await session.http
      .post('/alerts/v1/notifications/create')
      .set('cookie', cookie)
      .send({ manager: 'embedded', name: `csrf ${randomUUID()}`, type: 'email', config: { recipientAddresses: 'ops@example.com' } });
    expect(channel.status).toBe(200);
    const publish = `/alerts/v1/notifications/publish/${channel.body.result.id as string}`;
    const crossSite = await session.http.get(publish).set('cookie', cookie).set('sec-fetch-site', 'cross-site').set('sec-fetch-mode', 'no-cors');
    expect({ status: crossSite.status, code: crossSite.body.error?.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    const stillDraft = await session.sql<{ status: string }>('SELECT status FROM notification_channels WHERE id = $1', [channel.body.result.id]);
    expect(stillDraft.rows[0]?.status).toBe('draft');
    // The same request from the gateway's own pages, or typed in the address bar, goes through.
    expect((await session.http.get(publish).set('cookie', cookie).set('sec-fetch-site', 'same-origin')).status).toBe(200);
  });

  it('do not take bearer tokens', async () => {
    const response = await listDatasets(session, bearer(await token()));
    expect(response.status).toBe(401);
    expect(response.body.error.message).toMatch(/AUTH_MODE=session/);
  });
});

describe('API keys', () => {
  it('are kept as hashes only', async () => {
    const key = await apiKey(hs, ['viewer']);
    const rows = await hs.sql<{ key_hash: string; key_prefix: string }>('SELECT key_hash, key_prefix FROM api_keys');
    expect(rows.rows.some((row) => row.key_hash.includes(key) || key.includes(row.key_hash))).toBe(false);
    expect(rows.rows.every((row) => /^[0-9a-f]{64}$/.test(row.key_hash))).toBe(true);
  });

  it('admit a key with the role, and refuse an unknown, a revoked and an expired key', async () => {
    const key = await apiKey(hs, ['viewer']);
    expect((await listDatasets(hs, { 'x-api-key': key })).status).toBe(200);
    expect((await listDatasets(hs, { 'x-api-key': `dpg_${'A'.repeat(43)}` })).body.error.message).toMatch(/not known/);
    expect((await listDatasets(hs, { 'x-api-key': 'hunter2' })).body.error.message).toMatch(/not an API key/);

    const store = createApiKeyStore(hs.gateway.database.prisma);
    const { key: revoked, record } = await store.create({ name: `revoked-${randomUUID().slice(0, 6)}`, roles: ['viewer'], createdBy: 'test' });
    await store.revoke(record.name);
    expect((await listDatasets(hs, { 'x-api-key': revoked })).body.error.message).toMatch(/revoked/);
    const expired = await apiKey(hs, ['viewer'], { expiresAt: new Date(Date.now() - 1000) });
    expect((await listDatasets(hs, { 'x-api-key': expired })).body.error.message).toMatch(/expired/);
  });

  it('refuse a key revoked by another process at once, although it was admitted (and kept) just before', async () => {
    const store = createApiKeyStore(hs.gateway.database.prisma);
    const { key, record } = await store.create({ name: `kept-${randomUUID().slice(0, 6)}`, roles: ['viewer'], createdBy: 'test' });
    for (let call = 0; call < 3; call++) expect((await listDatasets(hs, { 'x-api-key': key })).status).toBe(200);
    // As scripts/api-key.ts revoke does, on a connection of its own.
    await hs.sql('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [record.id]);
    const refused = await listDatasets(hs, { 'x-api-key': key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/revoked/);
  });

  it('refuse a kept key once its row is deleted', async () => {
    const store = createApiKeyStore(hs.gateway.database.prisma);
    const { key, record } = await store.create({ name: `deleted-${randomUUID().slice(0, 6)}`, roles: ['viewer'], createdBy: 'test' });
    expect((await listDatasets(hs, { 'x-api-key': key })).status).toBe(200);
    await hs.sql('DELETE FROM api_keys WHERE id = $1', [record.id]);
    expect((await listDatasets(hs, { 'x-api-key': key })).body.error.message).toMatch(/not known/);
  });

  it('refuse a kept key the moment it expires', async () => {
    const key = await apiKey(hs, ['viewer'], { expiresAt: new Date(Date.now() + 1_500) });
    expect((await listDatasets(hs, { 'x-api-key': key })).status).toBe(200);
    await sleep(1_600);
    expect((await listDatasets(hs, { 'x-api-key': key })).body.error.message).toMatch(/expired/);
  });

  it('act as apikey:<name> in what they create', async () => {
    const store = createApiKeyStore(hs.gateway.database.prisma);
    const { key } = await store.create({ name: 'etl-job', roles: ['dataset_creator'], createdBy: 'test' });
    await hs.http
      .post('/v2/template/create')
      .set('x-api-key', key)
      .send(envelope('api.query.template.create', { template_name: 'By Key', query_type: 'sql', query: SQL_QUERY }));
    const read = await hs.http.get('/v2/template/read/by_key').set('x-api-key', key);
    expect(read.body.result.created_by).toBe('apikey:etl-job');
  });
});

describe('AUTH_MODE=none', () => {
  it('acts as SYSTEM with every permission, whatever credentials come along', async () => {
    const open = await startTestGateway();
    try {
      const response = await open.http
        .post('/v2/template/create')
        .set('authorization', 'Bearer garbage')
        .send(envelope('api.query.template.create', { template_name: 'By System', query_type: 'sql', query: SQL_QUERY }));
      expect(response.status).toBe(200);
      expect((await open.http.get('/v2/template/read/by_system')).body.result.created_by).toBe('SYSTEM');
    } finally {
      await open.stop();
    }
  });
});
