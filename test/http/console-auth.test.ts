// The original console's credentials (issue 21), built exactly as its server builds them: the
// RS256 token its proxy adds (claims id, user_name, email_address, roles, is_owner; no iss, no aud),
// Keycloak's access token (roles under realm_access.roles), and its express-session record in
// table user_session (passport.user is the user id; roles at the top). Each is admitted with a role
// that grants the call, refused with one that does not, and refused without roles.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type KeyObject } from 'jose';
import { signSessionId } from '../../src/auth/session.js';
import { envelope } from '../support/api.js';
import { distributionTarGz } from '../support/archives.js';
import { filesUnder, registerOverRest, startStoreGateway, type StoreGateway } from '../support/connectors.js';
import { Ajv } from 'ajv';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const SESSION_SECRET = 'console-session-secret';
/** Where the console's pages are served; its proxy forwards this Origin to the gateway. */
const CONSOLE_ORIGIN = 'https://console.example';
/** Allowed to call the API from a browser (CORS), but not trusted with the session cookie. */
const OTHER_ALLOWED_ORIGIN = 'https://reports.example';
let folder: string;
let privateKey: CryptoKey | KeyObject;
let consoleJwt: TestGateway;
let keycloak: TestGateway;
let consoleSession: TestGateway;
let uploads: StoreGateway;
const warnings: string[] = [];

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'console-auth-'));
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  const publicKeyFile = path.join(folder, 'console.pem');
  await writeFile(publicKeyFile, await exportSPKI(pair.publicKey));
  const limits = { RATE_LIMIT_RPS: '100000', RATE_LIMIT_INGEST_RPS: '100000' };
  const capture = { write: (line: string) => void warnings.push(line) };
  [consoleJwt, keycloak, consoleSession] = await Promise.all([
    startTestGateway({ AUTH_MODE: 'jwt', JWT_PUBLIC_KEY_FILE: publicKeyFile, JWT_VERIFY_ISSUER: 'false', JWT_VERIFY_AUDIENCE: 'false', ...limits }, { logStream: capture, logLevel: 'warn' }),
    startTestGateway({
      AUTH_MODE: 'jwt',
      JWT_PUBLIC_KEY_FILE: publicKeyFile,
      JWT_ISSUER: 'https://keycloak.test/realms/obsrv',
      JWT_AUDIENCE: 'account',
      JWT_ROLES_CLAIM: 'realm_access.roles',
      ...limits,
    }),
    startTestGateway({
      AUTH_MODE: 'session',
      SESSION_SECRET,
      SESSION_TABLE: 'user_session',
      SESSION_USER_PATH: 'passport.user',
      SESSION_ROLES_PATH: 'roles',
      SESSION_TRUSTED_ORIGINS: CONSOLE_ORIGIN,
      CORS_ALLOWED_ORIGINS: `${CONSOLE_ORIGIN},${OTHER_ALLOWED_ORIGIN}`,
      ...limits,
    }),
  ]);
  uploads = await startStoreGateway({ OBJECT_STORE_CORS_ORIGINS: CONSOLE_ORIGIN, CONNECTOR_UI_SPEC_FORMAT: 'console' });
  // connect-pg-simple's table, under the name the console gives it.
  await consoleSession.sql('CREATE TABLE user_session (sid varchar NOT NULL PRIMARY KEY, sess json NOT NULL, expire timestamp(6) NOT NULL)');
}, 60_000);
afterAll(async () => {
  await Promise.all([consoleJwt?.stop(), keycloak?.stop(), consoleSession?.stop(), uploads?.stop()]);
  await rm(folder, { recursive: true, force: true });
});

/** The console's user token: its claims, RS256, a day's expiry, and no iss or aud. */
function consoleToken(roles: string[] | null): Promise<string> {
  const claims: Record<string, unknown> = { id: 'console-user-1', user_name: 'ada', email_address: 'ada@example.com', is_owner: false };
  if (roles) claims.roles = roles;
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'JWT' }).setIssuedAt().setExpirationTime('1d').sign(privateKey);
}

function keycloakToken(roles: string[], issuer = 'https://keycloak.test/realms/obsrv'): Promise<string> {
  return new SignJWT({ realm_access: { roles }, preferred_username: 'ada' })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setSubject('2f4b0c3e-keycloak-user')
    .setIssuer(issuer)
    .setAudience('account')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
}

/** The record the console's express-session stores after its login, with its signed cookie. */
async function consoleSessionCookie(roles: string[] | null): Promise<string> {
  const sid = randomUUID();
  const sess: Record<string, unknown> = {
    cookie: { originalMaxAge: 86_400_000, expires: new Date(Date.now() + 86_400_000).toISOString(), httpOnly: true, path: '/' },
    passport: { user: 'console-user-1' },
    token: 'the-console-token',
    userDetails: { id: 'console-user-1', user_name: 'ada', email_address: 'ada@example.com', is_owner: false },
  };
  if (roles) sess.roles = roles;
  await consoleSession.sql("INSERT INTO user_session (sid, sess, expire) VALUES ($1, $2, now() + interval '1 day')", [sid, JSON.stringify(sess)]);
  return `connect.sid=${encodeURIComponent(signSessionId(sid, SESSION_SECRET))}`;
}

const list = (gw: TestGateway) => gw.http.post('/v2/datasets/list').send(envelope('api.datasets.list', {}));
const outcome = (response: { status: number; body: { error?: { code?: string; message?: string } } }) => ({ status: response.status, code: response.body.error?.code });

describe("the console's own tokens (JWT_VERIFY_ISSUER/AUDIENCE=false)", () => {
  it('admits a token with a role that grants the call, and names the caller by its id claim', async () => {
    const bearer = `Bearer ${await consoleToken(['dataset_manager'])}`;
    expect(outcome(await list(consoleJwt).set('authorization', bearer))).toEqual({ status: 200, code: undefined });
    const created = await consoleJwt.http
      .post('/v2/datasets/create')
      .set('authorization', bearer)
      .send(envelope('api.datasets.create', { dataset_id: 'console-made', name: 'Console made' }));
    expect(outcome(created)).toEqual({ status: 200, code: undefined });
    const draft = await consoleJwt.http.get('/v2/datasets/read/console-made?status=Draft&fields=created_by').set('authorization', bearer);
    expect(draft.body.result).toEqual({ created_by: 'console-user-1' });
  });

  it('refuses a role without the permission (403), a token without roles (401), and a forged one (401)', async () => {
    expect(outcome(await list(consoleJwt).set('authorization', `Bearer ${await consoleToken(['ingestor'])}`))).toEqual({ status: 403, code: 'FORBIDDEN' });
    const noRoles = await list(consoleJwt).set('authorization', `Bearer ${await consoleToken(null)}`);
    expect(outcome(noRoles)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(noRoles.body.error.message).toMatch(/no roles claim/);
    const other = await generateKeyPair('RS256');
    const forged = await new SignJWT({ id: 'x', roles: ['admin'] }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('1h').sign(other.privateKey);
    expect(outcome(await list(consoleJwt).set('authorization', `Bearer ${forged}`))).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
  });

  it('says at start-up, as a warning, that issuer and audience are not checked', () => {
    expect(warnings.join('')).toMatch(/issuer \(iss\) and audience \(aud\) not checked/);
  });
});

describe("Keycloak's access tokens (JWT_ROLES_CLAIM=realm_access.roles)", () => {
  it('admits roles under realm_access.roles, and still checks the issuer', async () => {
    expect(outcome(await list(keycloak).set('authorization', `Bearer ${await keycloakToken(['dataset_manager'])}`))).toEqual({ status: 200, code: undefined });
    expect(outcome(await list(keycloak).set('authorization', `Bearer ${await keycloakToken(['ingestor'])}`))).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(outcome(await list(keycloak).set('authorization', `Bearer ${await keycloakToken(['admin'], 'https://elsewhere.test')}`))).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
  });

  it("refuses the console's own token there: it has no issuer", async () => {
    expect(outcome(await list(keycloak).set('authorization', `Bearer ${await consoleToken(['admin'])}`))).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
  });
});

describe("the console's sessions (SESSION_TABLE=user_session, SESSION_USER_PATH=passport.user, SESSION_ROLES_PATH=roles)", () => {
  it('admits the session a console login stores, with the roles it stores beside the user', async () => {
    expect(outcome(await list(consoleSession).set('cookie', await consoleSessionCookie(['dataset_manager'])))).toEqual({ status: 200, code: undefined });
  });

  it('refuses a session whose roles lack the permission (403) or that has no roles (401)', async () => {
    expect(outcome(await list(consoleSession).set('cookie', await consoleSessionCookie(['ingestor'])))).toEqual({ status: 403, code: 'FORBIDDEN' });
    const noRoles = await list(consoleSession).set('cookie', await consoleSessionCookie(null));
    expect(outcome(noRoles)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(noRoles.body.error.message).toMatch(/no roles at roles/);
  });
});

describe("the console's proxy (SESSION_TRUSTED_ORIGINS)", () => {
  it("admits the session cookie with the console's Origin although the Host is the gateway's", async () => {
    const cookie = await consoleSessionCookie(['dataset_manager']);
    expect(outcome(await list(consoleSession).set('cookie', cookie).set('origin', CONSOLE_ORIGIN))).toEqual({ status: 200, code: undefined });
  });

  it('still refuses the cookie from any other origin, even one CORS allows', async () => {
    const cookie = await consoleSessionCookie(['dataset_manager']);
    const response = await list(consoleSession).set('cookie', cookie).set('origin', OTHER_ALLOWED_ORIGIN);
    expect(outcome(response)).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(response.body.error.message).toMatch(/cross-site/);
  });
});

describe("the browser's direct upload to a link (OBJECT_STORE_CORS_ORIGINS)", () => {
  async function writeLink(name: string): Promise<{ url: string; filePath: string }> {
    const response = await uploads.http.post('/v2/files/generate-url').send(envelope('api.files.generate-url', { files: [name], access: 'write' }));
    const [entry] = response.body.result as { preSignedUrl: string; filePath: string }[];
    return { url: entry!.preSignedUrl, filePath: entry!.filePath };
  }
  const preflight = (url: string, origin: string) =>
    // As the console's browser asks it: its HTTP client adds Cache-Control and Pragma to every request.
    fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'cache-control,content-type,pragma,x-ms-blob-type' } });

  it('answers the preflight and the PUT from the allowed origin, with the CORS headers a browser needs', async () => {
    const link = await writeLink('from-browser.json');
    const answer = await preflight(link.url, CONSOLE_ORIGIN);
    expect({
      status: answer.status,
      origin: answer.headers.get('access-control-allow-origin'),
      methods: answer.headers.get('access-control-allow-methods'),
      headers: answer.headers.get('access-control-allow-headers'),
    }).toEqual({
      status: 204,
      origin: CONSOLE_ORIGIN,
      methods: expect.stringContaining('PUT'),
      headers: 'content-type, x-ms-blob-type, cache-control, pragma',
    });
    const put = await fetch(link.url, {
      method: 'PUT',
      headers: { origin: CONSOLE_ORIGIN, 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/json', 'cache-control': 'no-cache', pragma: 'no-cache' },
      body: '{"a":1}',
    });
    expect({ status: put.status, origin: put.headers.get('access-control-allow-origin') }).toEqual({ status: 200, origin: CONSOLE_ORIGIN });
    expect(await filesUnder(`${uploads.dataDir}/objects`)).toContain(link.filePath);
  });

  it('refuses the preflight and the PUT from an origin not allowed, and stores nothing', async () => {
    const link = await writeLink('from-elsewhere.json');
    const answer = await preflight(link.url, 'https://evil.example');
    expect({ status: answer.status, origin: answer.headers.get('access-control-allow-origin') }).toEqual({ status: 403, origin: null });
    const put = await fetch(link.url, { method: 'PUT', headers: { origin: 'https://evil.example' }, body: 'x' });
    expect(put.status).toBe(403);
    expect(await filesUnder(`${uploads.dataDir}/objects`)).not.toContain(link.filePath);
  });
});

describe("the console's other spellings", () => {
  it("answers dataset health asked as api.datasets.health (the console's id), as it answers api.dataset.health", async () => {
    const ask = (id: string) => uploads.http.post('/v2/datasets/health').send({ ...envelope(id, { dataset_id: '*', categories: ['infra'] }), id });
    const [console, contract] = [await ask('api.datasets.health'), await ask('api.dataset.health')];
    expect([console.status, console.body.result?.details?.[0]?.category]).toEqual([200, 'infra']);
    expect(console.body.result).toEqual(contract.body.result);
    expect(outcome(await ask('api.datasets.healthz'))).toEqual({ status: 400, code: 'DATASET_HEALTH_INVALID_INPUT' });
  });

  it('finds personal data through the system API route the console calls, with the request as the body itself', async () => {
    const response = await uploads.http
      .post('/system/data/v1/analyze/pii')
      .send({ id: 'c0ffee00-0000-4000-8000-000000000001', dataset_id: 'telemetry', data: [{ id: 'u1', email: 'ada@example.com' }] });
    expect(response.status).toBe(200);
    expect((response.body.result as { field: string; type: string }[]).map((finding) => [finding.field, finding.type])).toContainEqual(['email', 'email']);
    expect(outcome(await uploads.http.post('/system/data/v1/analyze/pii').send({ dataset_id: 'telemetry' }))).toEqual({ status: 400, code: 'DATA_ANALYZE_PII_INVALID_INPUT' });
  });
});

describe('the connector form (CONNECTOR_UI_SPEC_FORMAT=console)', () => {
  it("answers each built-in connector's ui_spec as the console's form: title, fields with titles and help, required", async () => {
    const list = await uploads.http.post('/v2/connectors/list').send(envelope('api.connectors.list', {}));
    const ids = (list.body.result.data as { id: string }[]).map((connector) => connector.id);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const read = await uploads.http.get(`/v2/connectors/read/${id}`);
      const form = read.body.result.ui_spec as { title: string; properties: Record<string, { title?: string }>; required: string[] };
      // What the console's ConnectorConfiguration and AllConfigurations read of it.
      expect([id, typeof form.title, Object.keys(form.properties).length > 0]).toEqual([id, 'string', true]);
      for (const [name, field] of Object.entries(form.properties)) expect([id, name, typeof field.title]).toEqual([id, name, 'string']);
      for (const name of form.required) expect([id, name in form.properties]).toEqual([id, true]);
    }
    const kafka = (await uploads.http.get(`/v2/connectors/read/${ids.find((id) => id.startsWith('kafka'))}`)).body.result.ui_spec;
    expect(kafka.properties.source_kafka_broker_servers).toMatchObject({ title: 'Bootstrap Servers', helptext: expect.stringMatching(/host:port/) });
    expect(kafka.required).toContain('source_kafka_topic');
  });

  // What ConnectorConfiguration does with the form: each property, in uiIndex order, becomes a form
  // of its own ({type: object, properties: {key}, required: [key] when required}); format password
  // gives a password input; the help panel prints helptext || description; what is typed is
  // checked with Ajv ({strict: false}) against {type: object, properties, required}.
  const consoleAjv = new Ajv({ strict: false, logger: false });
  type Field = { title?: string; type?: string; format?: string; helptext?: string; description?: string; uiIndex?: number; oneOf?: unknown[] };
  type Form = { title: string; description: string; properties: Record<string, Field>; required: string[]; dependencies?: unknown };
  const formOf = async (id: string) => (await uploads.http.get(`/v2/connectors/read/${id}`)).body.result.ui_spec as Form;
  const typedIn = (form: Form, data: Record<string, unknown>) => consoleAjv.validate({ type: 'object', properties: form.properties, required: form.required }, data);

  it('renders every field of every built-in form, with help text, password inputs and the fields a choice adds', async () => {
    for (const id of ['postgres-connector-1.0.0', 'mysql-connector-1.0.0', 'kafka-connector-1.0.0', 'object-store-connector-1.0.0']) {
      const form = await formOf(id);
      // Top-level dependencies would be ignored by the console's per-field forms: none are left.
      expect([id, form.dependencies]).toEqual([id, undefined]);
      expect([id, typeof form.description]).toEqual([id, 'string']);
      const sections = Object.entries(form.properties).sort(([, a], [, b]) => a.uiIndex! - b.uiIndex!);
      for (const [key, field] of sections) {
        const section = { type: 'object', properties: { [key]: field }, required: form.required.includes(key) ? [key] : [] };
        expect([id, key, consoleAjv.validateSchema(section)]).toEqual([id, key, true]);
        expect([id, key, typeof field.title, typeof (field.helptext || field.description)]).toEqual([id, key, 'string', 'string']);
        expect([id, key, field.type ?? (field.oneOf ? 'oneOf' : undefined)]).toEqual([id, key, expect.any(String)]);
      }
    }
    const postgres = await formOf('postgres-connector-1.0.0');
    expect(postgres.properties.password).toMatchObject({ type: 'string', format: 'password' });
    expect(postgres.properties.ca_certificate).toMatchObject({ title: 'CA Certificate (PEM)', helptext: expect.stringMatching(/when ssl_mode is verify-full/) });
    expect(postgres.required).not.toContain('ca_certificate');
    const kafka = await formOf('kafka-connector-1.0.0');
    expect(kafka.properties.password).toMatchObject({ format: 'password', helptext: expect.stringMatching(/when authentication is sasl_plain or sasl_scram/) });
    // Credentials differ by storage type: a choice of three shapes.
    const store = await formOf('object-store-connector-1.0.0');
    expect((store.properties.credentials!.oneOf as { title: string }[]).map((variant) => variant.title)).toEqual(['type is s3', 'type is azure_blob', 'type is gcs']);

    // The console's check of what the user typed: a whole PostgreSQL form passes, a port out of range or a missing host does not.
    const typed = { database_type: 'postgresql', host: 'db.internal', port: 5432, name: 'shop', table: 'orders', username: 'reader', password: 's3cret' };
    expect(typedIn(postgres, typed)).toBe(true);
    expect(typedIn(postgres, { ...typed, port: 70_000 })).toBe(false);
    const { host: _host, ...withoutHost } = typed;
    expect(typedIn(postgres, withoutHost)).toBe(false);
    expect(typedIn(store, { type: 's3', bucket: 'raw-events', file_format: 'jsonl', credentials: { access_key: 'AK', secret_key: 'SK', region: 'eu-west-1' } })).toBe(true);
  });

  it('answers the ui_spec a registered archive carries as it is, when it is already a console form', async () => {
    const form = {
      title: 'Archive Source',
      description: 'Reads from the archive source',
      type: 'object',
      properties: { endpoint: { title: 'Endpoint', type: 'string', description: 'Where to read', uiIndex: 1 }, token: { title: 'Token', type: 'string', format: 'password', uiIndex: 2 } },
      required: ['endpoint'],
    };
    const registered = await registerOverRest(uploads, distributionTarGz({ id: 'archive-form', version: '0.3.0', uiConfig: form }), 'archive-form.tar.gz');
    expect([registered.status, registered.body.params]).toEqual([200, expect.anything()]);
    expect((await uploads.http.get('/v2/connectors/read/archive-form-0.3.0')).body.result.ui_spec).toEqual(form);
  });
});
