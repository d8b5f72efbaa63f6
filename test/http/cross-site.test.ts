// A page on another site cannot use the visitor's browser against the gateway: a body must be JSON
// (a text/plain or form POST needs no preflight, so it is refused, not parsed), a foreign Origin is
// refused unless CORS_ALLOWED_ORIGINS names it, and without authentication (AUTH_MODE=none) only
// loopback Host names are answered, so a DNS-rebinding page can neither read nor write.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope, SQL_QUERY } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const CONSOLE = 'https://console.example.com';
let open: TestGateway;
let withCors: TestGateway;

beforeAll(async () => {
  [open, withCors] = await Promise.all([startTestGateway(), startTestGateway({ CORS_ALLOWED_ORIGINS: `${CONSOLE}, http://localhost:3001` })]);
});
afterAll(async () => {
  await Promise.all([open?.stop(), withCors?.stop()]);
});

const createBody = (name: string) => JSON.stringify(envelope('api.query.template.create', { template_name: name, query_type: 'sql', query: SQL_QUERY }));

async function stored(gw: TestGateway, name: string): Promise<number> {
  return (await gw.sql('SELECT 1 FROM query_templates WHERE template_name = $1', [name])).rowCount ?? 0;
}

describe('writes a foreign page could send without a preflight', () => {
  it('refuses a text/plain POST from a foreign Origin with 403 and stores nothing', async () => {
    const response = await open.http.post('/v2/template/create').set('origin', 'https://attacker.example').set('content-type', 'text/plain').send(createBody('Csrf Plain'));
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(response.body.error.message).toMatch(/https:\/\/attacker\.example.*CORS_ALLOWED_ORIGINS/);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(await stored(open, 'Csrf Plain')).toBe(0);
  });

  it('refuses a body that is not declared JSON even without an Origin, naming the content type', async () => {
    const response = await open.http.post('/v2/template/create').set('content-type', 'text/plain').send(createBody('Plain Body'));
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 400, code: 'QUERY_TEMPLATE_INVALID' });
    expect(response.body.error.message).toMatch(/Content-Type: application\/json \(got text\/plain\)/);
    expect(await stored(open, 'Plain Body')).toBe(0);
  });

  it('refuses a GraphQL call from a foreign Origin with 403', async () => {
    const response = await open.http.post('/graphql').set('origin', 'https://attacker.example').set('content-type', 'application/json').send({ query: '{ version }' });
    expect(response.status).toBe(403);
    expect(response.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it("answers the gateway's own origin and callers that send none", async () => {
    const own = await open.http.post('/graphql').set('origin', open.url).send({ query: '{ version }' });
    expect(own.status).toBe(200);
    const server = await open.http.post('/v2/template/list').send(envelope('api.query.template.list', {}));
    expect(server.status).toBe(200);
  });
});

describe('AUTH_MODE=none answers loopback host names only', () => {
  it('refuses a request whose Host is a rebound name, and answers 127.0.0.1 and localhost', async () => {
    const port = new URL(open.url).port;
    const rebound = await open.http.get('/v2/template/read/anything').set('host', `rebind.attacker.example:${port}`);
    expect({ status: rebound.status, code: rebound.body.error?.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(rebound.body.error.message).toMatch(/loopback host names only; Host "rebind\.attacker\.example:\d+"/);
    const graphql = await open.http.post('/graphql').set('host', 'rebind.attacker.example').send({ query: '{ version }' });
    expect(graphql.status).toBe(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      expect((await open.http.post('/graphql').set('host', host).send({ query: '{ version }' })).status).toBe(200);
    }
  });
});

describe('CORS', () => {
  it('allows nothing by default: a preflight from any origin is refused without CORS headers', async () => {
    const response = await open.http.options('/v2/template/create').set('origin', CONSOLE).set('access-control-request-method', 'POST');
    expect(response.status).toBe(403);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers the preflight of an allowed origin and lets its JSON write through, with CORS headers', async () => {
    const preflight = await withCors.http
      .options('/v2/template/create')
      .set('origin', CONSOLE)
      .set('access-control-request-method', 'POST')
      .set('access-control-request-headers', 'content-type, authorization');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(CONSOLE);
    expect(preflight.headers['access-control-allow-methods']).toMatch(/POST/);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/content-type/);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/authorization/);
    expect(preflight.headers.vary).toMatch(/Origin/);

    const write = await withCors.http.post('/v2/template/create').set('origin', CONSOLE).set('content-type', 'application/json').send(createBody('Cors Allowed'));
    expect(write.status).toBe(200);
    expect(write.headers['access-control-allow-origin']).toBe(CONSOLE);
    expect(write.headers['access-control-allow-credentials']).toBe('true');
    expect(await stored(withCors, 'Cors Allowed')).toBe(1);
  });

  it('still refuses an origin the list does not name', async () => {
    const response = await withCors.http.options('/graphql').set('origin', 'https://other.example').set('access-control-request-method', 'POST');
    expect(response.status).toBe(403);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});
