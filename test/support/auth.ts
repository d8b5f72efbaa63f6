// Helpers for access-control tests: tokens (good, expired, without roles, forged), sessions in the
// store with their signed cookie, API keys, and requests generated from the REST table and from
// the schema's root fields, so an endpoint or field added later is covered without a test edit.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { getNamedType, isCompositeType, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, type GraphQLField, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import type { Response } from 'supertest';
import { restEndpoints } from '../../rest/endpoints.js';
import type { RestEndpoint } from '../../rest/table.js';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import { fieldApiIds, PUBLIC_API_ID } from '../../src/auth/field-api-ids.js';
import { loadPolicy, type PermissionPolicy } from '../../src/auth/policy.js';
import { signSessionId } from '../../src/auth/session.js';
import { buildSchema, ROOT_FIELD_PERMISSIONS } from '../../src/graphql/schema.js';
import { CHANGE_STREAM_FIELDS, type ChangeStreamField } from '../../src/modules/live/index.js';
import { envelope } from './api.js';
import { startTestGateway, useForFile, type TestGateway } from './gateway.js';

export const JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';
export const ISSUER = 'https://issuer.test';
export const AUDIENCE = 'data-platform-gateway';
export const SESSION_SECRET = 'session-secret-for-tests';

/** Environment of a gateway that takes HS256 bearer tokens, with rate limits out of the way. */
export const JWT_ENV = {
  AUTH_MODE: 'jwt',
  JWT_SECRET,
  JWT_ISSUER: ISSUER,
  JWT_AUDIENCE: AUDIENCE,
  RATE_LIMIT_RPS: '100000',
  RATE_LIMIT_INGEST_RPS: '100000',
};

export const SESSION_ENV = { AUTH_MODE: 'session', SESSION_SECRET, RATE_LIMIT_RPS: '100000', RATE_LIMIT_INGEST_RPS: '100000' };

/**
 * A gateway in each credential mode (JWT_ENV and SESSION_ENV) for the whole test file, started
 * side by side (useForFile).
 */
export function useAuthGateways(): { jwtGateway: () => TestGateway; sessionGateway: () => TestGateway } {
  const gateways = useForFile(async () => {
    const [jwt, session] = await Promise.all([startTestGateway(JWT_ENV), startTestGateway(SESSION_ENV)]);
    return { jwt, session, stop: () => Promise.all([jwt.stop(), session.stop()]) };
  }, 60_000);
  return { jwtGateway: () => gateways().jwt, sessionGateway: () => gateways().session };
}

export interface TokenOptions {
  sub?: string;
  roles?: string[] | null;
  expiresIn?: number;
  secret?: string;
  issuer?: string;
  audience?: string;
  claims?: Record<string, unknown>;
}

/** An HS256 token; `roles: null` leaves the roles claim out, `expiresIn` < 0 makes it expired. */
export async function token(options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = { ...options.claims };
  if (options.roles !== null) payload.roles = options.roles ?? ['admin'];
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(options.sub ?? 'user-1')
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(now - 10)
    .setExpirationTime(now + (options.expiresIn ?? 600))
    .sign(new TextEncoder().encode(options.secret ?? JWT_SECRET));
}

/** A session in the store for a user with these roles, and the Cookie header that names it. */
export async function sessionCookie(gw: TestGateway, roles: string[] | null, options: { expiresInSeconds?: number; id?: string } = {}): Promise<string> {
  const sid = randomUUID();
  const user: Record<string, unknown> = { id: options.id ?? `session-user-${sid.slice(0, 8)}` };
  if (roles !== null) user.roles = roles;
  const sess = { cookie: { originalMaxAge: 3_600_000, httpOnly: true, path: '/' }, passport: { user } };
  await gw.sql(`INSERT INTO "session" (sid, sess, expire) VALUES ($1, $2, now() + make_interval(secs => $3))`, [sid, JSON.stringify(sess), options.expiresInSeconds ?? 3600]);
  return `connect.sid=${encodeURIComponent(signSessionId(sid, SESSION_SECRET))}`;
}

/** The same cookie with one character of its signature changed. */
export function tamper(cookie: string): string {
  const value = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
  const last = value.at(-2) === 'A' ? 'B' : 'A';
  return `connect.sid=${encodeURIComponent(`${value.slice(0, -2)}${last}${value.at(-1)}`)}`;
}

/** A new API key with these roles (created as the CLI does). */
export async function apiKey(gw: TestGateway, roles: string[], options: { expiresAt?: Date } = {}): Promise<string> {
  const store = createApiKeyStore(gw.gateway.database.prisma);
  const { key } = await store.create({ name: `key-${randomUUID().slice(0, 8)}`, roles, createdBy: 'test', ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}) });
  return key;
}

export const policy: PermissionPolicy = loadPolicy();

/** A role of the default policy that may call one of the ids (a narrow one before admin), if any. */
export function roleAllowed(apiIds: readonly string[]): string | undefined {
  const roles = policy.rolesFor(apiIds);
  return roles.find((role) => role !== 'admin') ?? roles[0];
}

/** A role of the default policy that may call none of the ids, if any. */
export function roleDenied(apiIds: readonly string[]): string | undefined {
  return policy.roles.find((role) => !policy.allows([role], apiIds));
}

// ---------------------------------------------------------------------------------------------
// REST: one request per table entry

export const endpoints: readonly RestEndpoint[] = restEndpoints;

export function endpointName(endpoint: RestEndpoint): string {
  return `${endpoint.method} ${endpoint.path} (${endpoint.apiId})`;
}

/** The entry's path with every `:param` filled in. */
export function concretePath(endpoint: RestEndpoint, value = 'probe-1'): string {
  return endpoint.path.replace(/:(\w+)/g, () => encodeURIComponent(value));
}

/** Sends a plausible call of the entry (its envelope with an empty request), with extra headers. */
export function callEndpoint(gw: TestGateway, endpoint: RestEndpoint, headers: Record<string, string> = {}): Promise<Response> {
  const url = concretePath(endpoint);
  const method = endpoint.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
  let request = gw.http[method](url);
  for (const [name, value] of Object.entries(headers)) request = request.set(name, value);
  if (endpoint.method === 'GET' || endpoint.method === 'DELETE') return request;
  return request.set('content-type', 'application/json').send(envelope(endpoint.apiId, {}));
}

// ---------------------------------------------------------------------------------------------
// GraphQL: one request per root field

export interface RootField {
  /** `Query.dataset` */
  coordinate: string;
  operation: 'query' | 'mutation' | 'subscription';
  field: GraphQLField<unknown, unknown>;
  apiIds: readonly string[];
  /** The root field it is asked under (a Query field under Subscription.live: a live query). */
  under?: string;
}

export const schema: GraphQLSchema = buildSchema('test');

export function rootFields(): RootField[] {
  const { byField } = fieldApiIds(schema, ROOT_FIELD_PERMISSIONS, restEndpoints);
  const fields: RootField[] = [];
  for (const [operation, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const coordinate = `${type.name}.${field.name}`;
      fields.push({ coordinate, operation, field, apiIds: byField.get(coordinate)! });
    }
  }
  return fields;
}

/**
 * Each resumable stream and its query twin, written here rather than read from the gateway: a stream
 * is refused exactly to the roles its twin is refused to, whatever API ids the stream itself names.
 */
const STREAM_TWINS: Readonly<Record<ChangeStreamField, string>> = {
  datasetChanges: 'Query.datasets',
  alertStateChanges: 'Query.alertRules',
  auditStream: 'Query.auditRecords',
};

/**
 * The Subscription root fields, as rootFields() gives the others (fieldRequest builds a subscription
 * of each), a resumable stream needing what its query twin needs (STREAM_TWINS), and every Query
 * field asked as a live query (under Subscription.live), which needs what its query twin needs.
 */
export function subscriptionFields(): RootField[] {
  const { byField } = fieldApiIds(schema, ROOT_FIELD_PERMISSIONS, restEndpoints);
  const type = schema.getSubscriptionType();
  if (!type) return [];
  for (const stream of CHANGE_STREAM_FIELDS) if (!STREAM_TWINS[stream]) throw new Error(`the resumable stream ${stream} has no query twin in STREAM_TWINS`);
  const fields: RootField[] = Object.values(type.getFields()).map((field) => {
    const twin = STREAM_TWINS[field.name as ChangeStreamField] as string | undefined;
    return { coordinate: `${type.name}.${field.name}`, operation: 'subscription', field, apiIds: byField.get(twin ?? `${type.name}.${field.name}`)! };
  });
  if (type.getFields().live) {
    const query = schema.getQueryType()!;
    for (const field of Object.values(query.getFields())) {
      fields.push({ coordinate: `Subscription.live > Query.${field.name}`, operation: 'subscription', field, apiIds: byField.get(`Query.${field.name}`)!, under: 'live' });
    }
  }
  return fields;
}

export function isPublic(field: RootField): boolean {
  return field.apiIds.length === 1 && field.apiIds[0] === PUBLIC_API_ID;
}

/** A value the input type accepts (required input fields only); Upload positions are recorded. */
function sampleValue(type: GraphQLInputType, path: string, uploads: string[]): unknown {
  if (isNonNullType(type)) return sampleValue(type.ofType, path, uploads);
  if (isListType(type)) return [sampleValue(type.ofType, `${path}.0`, uploads)];
  if (isEnumType(type)) return type.getValues()[0]!.name;
  if (isInputObjectType(type)) {
    const value: Record<string, unknown> = {};
    for (const field of Object.values(type.getFields())) {
      if (isNonNullType(field.type) && field.defaultValue === undefined) value[field.name] = sampleValue(field.type, `${path}.${field.name}`, uploads);
    }
    return value;
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int':
        return 1;
      case 'Float':
        return 1.5;
      case 'Boolean':
        return false;
      case 'DateTime':
        return '2026-01-01T00:00:00.000Z';
      case 'JSON':
        return {};
      case 'Upload':
        uploads.push(path);
        return null;
      default:
        return 'probe-1';
    }
  }
  return null;
}

/** A document calling the field with sample values for its required arguments. */
export function fieldRequest(root: RootField): { query: string; variables: Record<string, unknown>; uploads: string[] } {
  const variables: Record<string, unknown> = {};
  const uploads: string[] = [];
  const definitions: string[] = [];
  const args: string[] = [];
  for (const arg of root.field.args) {
    if (!isNonNullType(arg.type) || arg.defaultValue !== undefined) continue;
    variables[arg.name] = sampleValue(arg.type, `variables.${arg.name}`, uploads);
    definitions.push(`$${arg.name}: ${arg.type.toString()}`);
    args.push(`${arg.name}: $${arg.name}`);
  }
  const selection = isCompositeType(getNamedType(root.field.type)) ? ' { __typename }' : '';
  const field = `${root.field.name}${args.length ? `(${args.join(', ')})` : ''}${selection}`;
  const query = `${root.operation} Probe${definitions.length ? `(${definitions.join(', ')})` : ''} { ${root.under ? `${root.under} { ${field} }` : field} }`;
  return { query, variables, uploads };
}

export interface ProbeResult {
  status: number;
  body: { data?: Record<string, unknown> | null; errors?: { message: string; path?: string[]; extensions?: { code?: string } }[] };
}

/** Calls the root field over HTTP (multipart when it takes a file), with extra headers. */
export async function callField(gw: TestGateway, root: RootField, headers: Record<string, string> = {}): Promise<ProbeResult> {
  const { query, variables, uploads } = fieldRequest(root);
  let request = gw.http.post('/graphql').set('apollo-require-preflight', 'true');
  for (const [name, value] of Object.entries(headers)) request = request.set(name, value);
  let response: Response;
  if (uploads.length > 0) {
    request = request.field('operations', JSON.stringify({ query, variables })).field('map', JSON.stringify(Object.fromEntries(uploads.map((path, i) => [String(i), [path]]))));
    uploads.forEach((_, i) => {
      request = request.attach(String(i), Buffer.from('not an archive'), { filename: 'probe.tar.gz', contentType: 'application/gzip' });
    });
    response = await request;
  } else {
    response = await request.set('content-type', 'application/json').send({ query, variables });
  }
  return { status: response.status, body: response.body as ProbeResult['body'] };
}

/** The codes of the errors the field itself raised. */
export function fieldErrorCodes(result: ProbeResult, root: RootField): (string | undefined)[] {
  return (result.body.errors ?? []).filter((error) => error.path?.[0] === root.field.name).map((error) => error.extensions?.code);
}
