// Every REST entry of the table, whatever it is, refuses callers without valid credentials or
// without a role that holds its API id, and lets the right role through. The entries come from
// rest/endpoints.ts at run time: an endpoint added later is covered without touching this file.
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { apiKey, callEndpoint, endpointName, endpoints, roleAllowed, roleDenied, sessionCookie, tamper, token, useAuthGateways } from '../support/auth.js';
import type { RestEndpoint } from '../../rest/table.js';

const { jwtGateway, sessionGateway } = useAuthGateways();

function expectDenied(response: Response, apiId: string, status: 401 | 403) {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({
    id: apiId,
    ver: 'v2',
    params: { status: 'FAILED' },
    responseCode: status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN',
    error: { code: status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN', trace: '' },
    result: {},
  });
  expect(typeof response.body.error.message).toBe('string');
}

function expectAdmitted(response: Response, endpoint: RestEndpoint) {
  expect([401, 403, 429]).not.toContain(response.status);
  expect(response.status).toBeLessThan(500);
  // Entries answering without an envelope (rows, Prometheus's JSON) do so on success.
  if (endpoint.bareResult && response.status === 200) expect((response.body as { params?: unknown }).params).toBeUndefined();
  // Entries answering another media type (the Prometheus rule file's YAML) answer it on success.
  else if (endpoint.contentType && response.status === 200) expect(response.headers['content-type']).toContain(endpoint.contentType);
  else expect(response.body.id).toBe(endpoint.apiId);
}

it('has REST entries to check', () => {
  expect(endpoints.length).toBeGreaterThan(10);
});

describe.each(endpoints.map((endpoint) => [endpointName(endpoint), endpoint] as const))('%s', (_name, endpoint) => {
  const apiId = endpoint.apiId;
  const allowed = roleAllowed([apiId]);
  const denied = roleDenied([apiId]);

  it('refuses a call without credentials with 401 UNAUTHENTICATED', async () => {
    expectDenied(await callEndpoint(jwtGateway(), endpoint), apiId, 401);
    expectDenied(await callEndpoint(sessionGateway(), endpoint), apiId, 401);
  });

  it('refuses an expired token with 401', async () => {
    const response = await callEndpoint(jwtGateway(), endpoint, { authorization: `Bearer ${await token({ roles: ['admin'], expiresIn: -3600 })}` });
    expectDenied(response, apiId, 401);
    expect(response.body.error.message).toMatch(/expired/);
  });

  it('refuses a token without the roles claim with 401, even a validly signed one', async () => {
    const response = await callEndpoint(jwtGateway(), endpoint, { authorization: `Bearer ${await token({ roles: null })}` });
    expectDenied(response, apiId, 401);
    expect(response.body.error.message).toMatch(/roles/);
  });

  it('refuses a token with a forged signature with 401', async () => {
    const forged = await token({ roles: ['admin'], secret: 'another-secret-of-at-least-32-characters!' });
    const response = await callEndpoint(jwtGateway(), endpoint, { authorization: `Bearer ${forged}` });
    expectDenied(response, apiId, 401);
    expect(response.body.error.message).toMatch(/signature/);
  });

  it('refuses a tampered session cookie with 401', async () => {
    const cookie = tamper(await sessionCookie(sessionGateway(), ['admin']));
    expectDenied(await callEndpoint(sessionGateway(), endpoint, { cookie }), apiId, 401);
  });

  it('refuses a role that does not hold the API id with 403 FORBIDDEN, over a token, a session and an API key', async () => {
    const role = denied ?? 'no-such-role';
    const byToken = await callEndpoint(jwtGateway(), endpoint, { authorization: `Bearer ${await token({ roles: [role] })}` });
    expectDenied(byToken, apiId, 403);
    if (allowed) expect(byToken.body.error.message).toContain(allowed);
    expectDenied(await callEndpoint(sessionGateway(), endpoint, { cookie: await sessionCookie(sessionGateway(), [role]) }), apiId, 403);
    expectDenied(await callEndpoint(jwtGateway(), endpoint, { 'x-api-key': await apiKey(jwtGateway(), [role]) }), apiId, 403);
  });

  it('lets a role that holds the API id through, over a token, a session and an API key', async () => {
    const roles = [allowed ?? 'admin'];
    expectAdmitted(await callEndpoint(jwtGateway(), endpoint, { authorization: `Bearer ${await token({ roles })}` }), endpoint);
    expectAdmitted(await callEndpoint(sessionGateway(), endpoint, { cookie: await sessionCookie(sessionGateway(), roles) }), endpoint);
    expectAdmitted(await callEndpoint(sessionGateway(), endpoint, { 'x-api-key': await apiKey(sessionGateway(), roles) }), endpoint);
  });
});
