// Every GraphQL root field, whatever it is, answers UNAUTHENTICATED or FORBIDDEN to callers without
// valid credentials or the right role, and runs for the right role: the same API ids as the REST
// calls that run it. The fields come from the schema at run time, with sample arguments built from
// their types, so a field added later is covered without touching this file.
import { describe, expect, it } from '@jest/globals';
import { apiKey, callField, fieldErrorCodes, isPublic, roleAllowed, roleDenied, rootFields, sessionCookie, tamper, token, useAuthGateways, type ProbeResult, type RootField } from '../support/auth.js';

const { jwtGateway, sessionGateway } = useAuthGateways();

const fields = rootFields();
const guarded = fields.filter((field) => !isPublic(field));

function expectRefused(result: ProbeResult, field: RootField, code: 'UNAUTHENTICATED' | 'FORBIDDEN') {
  expect(result.status).toBe(200);
  expect(fieldErrorCodes(result, field)).toEqual([code]);
  expect(result.body.data?.[field.field.name] ?? null).toBeNull();
}

/** Credentials that do not hold refuse the whole operation, whatever it asks: 401, UNAUTHENTICATED, nothing run. */
function expectCredentialsRefused(result: ProbeResult) {
  expect({ status: result.status, codes: (result.body.errors ?? []).map((error) => error.extensions?.code), data: result.body.data ?? null }).toEqual({
    status: 401,
    codes: ['UNAUTHENTICATED'],
    data: null,
  });
}

function expectAdmitted(result: ProbeResult, field: RootField) {
  expect(result.status).toBeLessThan(500);
  const codes = fieldErrorCodes(result, field);
  expect(codes).not.toContain('UNAUTHENTICATED');
  expect(codes).not.toContain('FORBIDDEN');
  expect(codes).not.toContain('INTERNAL_SERVER_ERROR');
  // The request itself was well-formed: any refusal came from the field, not from the document.
  expect((result.body.errors ?? []).every((error) => error.path !== undefined)).toBe(true);
}

it('gives every root field an API id that some role of the default policy holds', () => {
  expect(guarded.length).toBeGreaterThan(10);
  for (const field of guarded) expect([field.coordinate, roleAllowed(field.apiIds)]).toEqual([field.coordinate, expect.any(String)]);
});

it('keeps version public, but not to a caller whose token does not hold', async () => {
  const response = await jwtGateway().http.post('/graphql').send({ query: '{ version }' });
  expect(response.body.data.version).toEqual(expect.any(String));
  const forged = await token({ roles: ['admin'], secret: 'another-secret-of-at-least-32-characters!' });
  const version = rootFields().find((root) => root.coordinate === 'Query.version')!;
  expectCredentialsRefused(await callField(jwtGateway(), version, { authorization: `Bearer ${forged}` }));
});

describe.each(guarded.map((field) => [`${field.coordinate} (${field.apiIds.join(', ')})`, field] as const))('%s', (_name, field) => {
  const allowed = roleAllowed(field.apiIds);
  const denied = roleDenied(field.apiIds);

  it('answers UNAUTHENTICATED without credentials', async () => {
    expectRefused(await callField(jwtGateway(), field), field, 'UNAUTHENTICATED');
    expectRefused(await callField(sessionGateway(), field), field, 'UNAUTHENTICATED');
  });

  it('answers UNAUTHENTICATED to an expired token, a token without roles and a forged one', async () => {
    for (const bearer of [await token({ roles: ['admin'], expiresIn: -3600 }), await token({ roles: null }), await token({ roles: ['admin'], secret: 'another-secret-of-at-least-32-characters!' })]) {
      expectCredentialsRefused(await callField(jwtGateway(), field, { authorization: `Bearer ${bearer}` }));
    }
  });

  it('answers UNAUTHENTICATED to a tampered session cookie', async () => {
    const cookie = tamper(await sessionCookie(sessionGateway(), ['admin']));
    expectCredentialsRefused(await callField(sessionGateway(), field, { cookie }));
  });

  it('answers FORBIDDEN to a role that does not hold its API id', async () => {
    const role = denied ?? 'no-such-role';
    expectRefused(await callField(jwtGateway(), field, { authorization: `Bearer ${await token({ roles: [role] })}` }), field, 'FORBIDDEN');
    expectRefused(await callField(sessionGateway(), field, { cookie: await sessionCookie(sessionGateway(), [role]) }), field, 'FORBIDDEN');
    expectRefused(await callField(jwtGateway(), field, { 'x-api-key': await apiKey(jwtGateway(), [role]) }), field, 'FORBIDDEN');
  });

  it('runs for a role that holds its API id', async () => {
    const roles = [allowed ?? 'admin'];
    expectAdmitted(await callField(jwtGateway(), field, { authorization: `Bearer ${await token({ roles })}` }), field);
    expectAdmitted(await callField(sessionGateway(), field, { cookie: await sessionCookie(sessionGateway(), roles) }), field);
  });
});

describe('introspection', () => {
  const query = '{ __schema { queryType { name } } }';

  it('answers 401 UNAUTHENTICATED to an anonymous client', async () => {
    const response = await jwtGateway().http.post('/graphql').send({ query });
    expect(response.status).toBe(401);
    expect(response.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('answers any authenticated caller', async () => {
    const response = await jwtGateway()
      .http.post('/graphql')
      .set('authorization', `Bearer ${await token({ roles: ['viewer'] })}`)
      .send({ query });
    expect(response.status).toBe(200);
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });
});
