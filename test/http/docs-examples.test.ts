// Every operation of the API reference (/docs) carries an example request, and Swagger UI's "Try
// it out" with each answers 2xx: the examples are replayed here over HTTP, in their order, against
// a fresh gateway, as the reference shows them (path, query and body). Alert records get their ids
// from the gateway: their examples' placeholder id stands for the id the create answered (and the
// dataset update's placeholder version_key for the one the dataset create answered).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CREATED_ID, CREATED_VERSION_KEY, restExamples } from '../../rest/examples.js';
import { restEndpoints } from '../../rest/endpoints.js';
import { openApiPath } from '../../rest/openapi.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
const REST_EXAMPLES = restExamples();
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

/** Which create gives the id the other operations on the same records use. */
const CREATED_BY: Record<string, string> = {
  'api.alert.silence': 'api.alert.silence.create',
  'api.metric': 'api.metric.add',
  'api.alert.notification': 'api.alert.notification.create',
  // A job (api.jobs.read, cancel): the one the export started when asked to respond async.
  'api.jobs': 'api.datasets.export',
  // Alert rules (api.alert.create, get, ...): after the longer prefixes above, which match first.
  'api.alert': 'api.alert.create',
};

/** Waits (at most 10 s) until the job has finished. */
async function finished(jobId: string): Promise<void> {
  for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const state = (await gw.http.get(`/v2/jobs/${jobId}`)).body?.result?.state as string | undefined;
    if (state && !['QUEUED', 'RUNNING'].includes(state.toUpperCase())) return;
  }
  throw new Error(`job ${jobId} did not finish within 10 s`);
}

describe('the API reference examples', () => {
  it('exist for every REST operation but the multipart upload, and name only real operations', () => {
    const byId = new Map(restEndpoints.map((endpoint) => [endpoint.apiId, endpoint]));
    for (const apiId of Object.keys(REST_EXAMPLES)) expect([apiId, byId.has(apiId)]).toEqual([apiId, true]);
    for (const endpoint of restEndpoints) {
      expect([endpoint.apiId, (REST_EXAMPLES[endpoint.apiId]?.length ?? 0) > 0]).toEqual([endpoint.apiId, !endpoint.multipart]);
    }
  });

  it('are shown in /openapi.json as the request Try it out sends', async () => {
    const document = (await gw.http.get('/openapi.json')).body as { paths: Record<string, Record<string, any>> };
    const read = document.paths[openApiPath('/v2/template/read/:template_id')]!.get;
    expect(read.parameters.find((parameter: { name: string }) => parameter.name === 'template_id').example).toBe('readings_by_device');
    const transition = document.paths['/v2/datasets/status-transition']!.post.requestBody.content['application/json'].examples;
    expect(Object.keys(transition)).toEqual(['ReadyToPublish', 'Live']);
    // Each header an example sends is a parameter of the reference, and each success it answers a documented response.
    for (const [apiId, examples] of Object.entries(REST_EXAMPLES)) {
      const endpoint = restEndpoints.find((entry) => entry.apiId === apiId)!;
      const operation = document.paths[openApiPath(endpoint.path)]![endpoint.method.toLowerCase()];
      const headers = ((operation.parameters ?? []) as { in: string; name: string; example?: string }[]).filter((parameter) => parameter.in === 'header');
      for (const example of examples) {
        for (const [name, value] of Object.entries(example.headers ?? {})) {
          expect([apiId, name, headers.find((parameter) => parameter.name.toLowerCase() === name.toLowerCase())?.example]).toEqual([apiId, name, value]);
        }
        const status = String(example.status ?? 200);
        expect([apiId, status, operation.responses[status] !== undefined]).toEqual([apiId, status, true]);
      }
    }
  });

  it('each answer as it shows (2xx, a job started, or the refusal an example is of) when tried in order on a fresh gateway', async () => {
    const created: Record<string, string> = {};
    let versionKey = CREATED_VERSION_KEY;
    for (const [apiId, examples] of Object.entries(REST_EXAMPLES)) {
      const endpoint = restEndpoints.find((entry) => entry.apiId === apiId)!;
      const family = Object.keys(CREATED_BY).find((prefix) => apiId.startsWith(`${prefix}.`));
      for (const example of examples) {
        const id = family ? created[family] : undefined;
        const fill = (value: string) => (id ? value.replace(CREATED_ID, id) : value);
        let url = endpoint.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(fill(example.path?.[name] ?? '')));
        if (example.query) url += `?${new URLSearchParams(example.query).toString()}`;
        const method = endpoint.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
        let request = gw.http[method](url);
        for (const [name, value] of Object.entries(example.headers ?? {})) request = request.set(name, value);
        if (example.body !== undefined) request = request.set('content-type', 'application/json').send(JSON.stringify(example.body).replace(CREATED_VERSION_KEY, versionKey));
        const response = await request;
        const status = example.status ?? 200;
        expect({ example: `${apiId} ${example.name ?? ''}`, status: response.status, error: status < 300 ? response.body?.error : response.body?.error?.code }).toEqual({
          example: `${apiId} ${example.name ?? ''}`,
          status,
          error: status < 300 ? undefined : expect.any(String),
        });
        if (CREATED_BY[family ?? ''] === apiId) created[family!] = response.body.result.id as string;
        // A job started (202): the job operations use its id; followed to its end, as a client following its status link would.
        if (status === 202) {
          created['api.jobs'] = response.body.result.id as string;
          await finished(created['api.jobs']);
        }
        if (apiId === 'api.datasets.create') versionKey = response.body.result.version_key as string;
      }
    }
  });
});
