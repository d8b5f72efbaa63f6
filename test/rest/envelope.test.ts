import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope, ISO_WITH_OFFSET, SQL_QUERY, UUID_PATTERN } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

describe('the REST envelope', () => {
  it('answers a success with every envelope field, the msgid echoed and a fresh resmsgid', async () => {
    const response = await gw.http
      .post('/v2/template/create')
      .send(envelope('api.query.template.create', { template_name: 'Envelope One', query_type: 'sql', query: SQL_QUERY }, 'msg-42'));
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['id', 'params', 'responseCode', 'result', 'ts', 'ver']);
    expect(response.body).toMatchObject({
      id: 'api.query.template.create',
      ver: 'v2',
      responseCode: 'OK',
      params: { status: 'SUCCESS', msgid: 'msg-42' },
      result: { template_id: 'envelope_one', template_name: 'Envelope One', message: 'The query template has been saved successfully' },
    });
    expect(response.body.ts).toMatch(ISO_WITH_OFFSET);
    expect(response.body.params.resmsgid).toMatch(UUID_PATTERN);
  });
});
