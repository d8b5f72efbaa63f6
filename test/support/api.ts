// Request builders for tests: the contract's envelope and GraphQL calls, and the failure envelope's check.
import { expect } from '@jest/globals';
import type { Response } from 'supertest';
import type { TestGateway } from './gateway.js';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** ISO 8601 date-time with a numeric offset, e.g. 2026-11-22T06:55:04+00:00. */
export const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/;

export function envelope(apiId: string, request?: unknown, msgid = 'test-msg-1') {
  return { id: apiId, ver: 'v2', ts: new Date().toISOString(), params: { msgid }, ...(request === undefined ? {} : { request }) };
}

/** A REST failure envelope: this HTTP status, code and responseCode, a message matching `message`, an empty trace and result. */
export function expectRestFailure(response: Response, status: number, code: string, responseCode: string, message: RegExp): void {
  const body = response.body as { params?: { status?: string }; responseCode?: string; error?: { code?: string; message?: string; trace?: string }; result?: unknown };
  expect({ status: response.status, code: body.error?.code, responseCode: body.responseCode, state: body.params?.status }).toEqual({ status, code, responseCode, state: 'FAILED' });
  expect(body.error?.message).toMatch(message);
  expect({ trace: body.error?.trace, result: body.result }).toEqual({ trace: '', result: {} });
}

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  data?: T | null;
  errors?: { message: string; path?: string[]; extensions?: { code?: string; responseCode?: string } }[];
}

export async function graphql<T = Record<string, any>>(gw: TestGateway, query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T>> {
  const response = await gw.http.post('/graphql').set('content-type', 'application/json').send({ query, variables });
  return { status: response.status, data: response.body.data, errors: response.body.errors };
}

/** The first error's contract code, for one-line assertions. */
export function errorCode(response: GraphQLResponse): string | undefined {
  return response.errors?.[0]?.extensions?.code;
}

export const SQL_QUERY = 'SELECT * FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}';
export const JSON_QUERY = JSON.stringify({
  queryType: 'timeseries',
  dataSource: '{{DATASET}}',
  intervals: ['{{STARTDATE}}/{{ENDDATE}}'],
  granularity: 'day',
  aggregations: [{ type: 'count', name: 'count' }],
});
