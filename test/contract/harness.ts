// One scenario set, every transport (Apollo Server's integration test suite is the model): a
// domain's contract suite is written once against a driver, and runs once per transport. A driver
// turns a domain call into a REST envelope or a GraphQL operation and back into an `Outcome`, so
// a scenario asserts what a user sees (the record, the error code, the message), never the wire.
// What only one transport has (status codes, the envelope, GraphQL `errors`) stays in
// test/rest/* and test/graphql/*; the REST driver also checks the envelope of every answer it reads.
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import type { Response } from 'supertest';
import { ERROR_CATALOGUE, GatewayError, type ErrorCode } from '../../src/errors.js';
import { DOCUMENT_NAMES, type DocumentField } from '../../src/platform/dataset-document.js';
import type { GraphQLResponse } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

export const TRANSPORTS = ['rest', 'graphql', 'graphql-ws', 'graphql-sse'] as const;
export type TransportName = (typeof TRANSPORTS)[number];

/** A failed call as a user of either transport sees it: the contract's code and a message. */
export interface Failure {
  ok: false;
  code: string;
  message: string;
}
export type Outcome<T> = { ok: true; value: T } | Failure;

export interface SuiteContext<D, G extends TestGateway = TestGateway> {
  readonly transport: TransportName;
  /** The driver of this run's transport (available inside tests and hooks). */
  readonly driver: D;
  /** The gateway this run talks to (for arranging state through SQL). */
  readonly gw: G;
}

export interface ContractSuiteOptions<G extends TestGateway = TestGateway> {
  /** Environment of the gateway each transport's run starts. */
  env?: Record<string, string>;
  /** How a run starts its gateway (e.g. one with a data folder of its own); startTestGateway by default. */
  start?: (env: Record<string, string>) => Promise<G>;
}

/**
 * Runs `scenarios` once per transport it has a driver for (a request/answer domain: rest and
 * graphql; what is live: graphql-ws and graphql-sse; a GraphQL-only query: graphql, and graphql-ws
 * and graphql-sse as a live query), each run on a gateway (and database) of its
 * own. The top describe is named `<name> over <transport>`; test/support/contract-reporter.mjs counts them.
 */
export function defineContractSuite<D, G extends TestGateway = TestGateway>(
  name: string,
  drivers:
    | { [T in 'rest' | 'graphql']: (gw: G) => D }
    | { [T in 'graphql-ws' | 'graphql-sse']: (gw: G) => D }
    // A GraphQL-only query (no REST endpoint): over POST /graphql, and as a live query over both subscription transports.
    | { [T in 'graphql' | 'graphql-ws' | 'graphql-sse']: (gw: G) => D },
  scenarios: (context: SuiteContext<D, G>) => void,
  options: ContractSuiteOptions<G> = {},
): void {
  const start = options.start ?? ((env: Record<string, string>) => startTestGateway(env) as Promise<G>);
  const runs = drivers as Partial<Record<TransportName, (gw: G) => D>>;
  for (const transport of TRANSPORTS) {
    const driverFor = runs[transport];
    if (!driverFor) continue;
    describe(`${name} over ${transport}`, () => {
      let gw: G | undefined;
      let driver: D | undefined;
      beforeAll(async () => {
        gw = await start(options.env ?? {});
        driver = driverFor(gw);
      });
      afterAll(async () => {
        await gw?.stop();
      });
      scenarios({
        transport,
        get driver() {
          if (!driver) throw new Error('the driver exists once beforeAll has run');
          return driver;
        },
        get gw() {
          if (!gw) throw new Error('the gateway exists once beforeAll has run');
          return gw;
        },
      });
    });
  }
}

/** The value of a successful outcome; fails the test, naming the code, when it failed. */
export function expectOk<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.code}: ${outcome.message}`);
  return outcome.value;
}

/** The outcome with its value made into another (a transport's spelling into the contract's). */
export function mapOutcome<T, U>(outcome: Outcome<T>, map: (value: T) => U): Outcome<U> {
  return outcome.ok ? { ok: true, value: map(outcome.value) } : outcome;
}

/**
 * A dataset field as a message on this transport names it: the domain's (GraphQL's) name, or the
 * contract's over REST. Scenarios build their expected messages with it.
 */
export function fieldNameOn(transport: TransportName, name: DocumentField): string {
  return transport === 'rest' ? DOCUMENT_NAMES[name] : name;
}

/** A failure with this code and a message matching `message`. */
export function expectFailure(outcome: Outcome<unknown>, code: string, message?: RegExp): void {
  expect(outcome.ok ? { ok: true } : { ok: false, code: outcome.code }).toEqual({ ok: false, code });
  if (message && !outcome.ok) expect(outcome.message).toMatch(message);
}

/**
 * Codes an endpoint answers with another kind, and HTTP status, than the catalogue's: ingestion
 * answers its lookups (DATASET_NOT_FOUND, TOPIC_NOT_FOUND) with responseCode BAD_REQUEST and HTTP 404.
 */
export type KindOverrides = Readonly<Record<string, { kind: string; status: number }>>;

const kindOf = (code: string, overrides: KindOverrides): string | undefined => overrides[code]?.kind ?? (ERROR_CATALOGUE as Record<string, string>)[code];

/**
 * Reads a REST answer: the envelope's `result` on success, else its error. Every answer's envelope
 * is checked on the way (status SUCCESS/FAILED, responseCode agreeing with the HTTP status). A code's
 * HTTP status is the one src/errors.ts gives it: its kind's, or its own (502 for a manager that failed).
 */
export function restOutcome<T = unknown>(response: Response, overrides: KindOverrides = {}): Outcome<T> {
  const body = response.body as { params?: { status?: string }; responseCode?: string; result?: unknown; error?: { code?: string; message?: string } };
  if (response.status === 200) {
    expect({ status: body.params?.status, responseCode: body.responseCode }).toEqual({ status: 'SUCCESS', responseCode: 'OK' });
    return { ok: true, value: body.result as T };
  }
  const code = body.error?.code ?? `HTTP_${response.status}`;
  const kind = kindOf(code, overrides);
  expect({ status: response.status, params: body.params?.status, responseCode: body.responseCode }).toEqual({
    status: overrides[code]?.status ?? (kind ? new GatewayError(code as ErrorCode, '').httpStatus : response.status),
    params: 'FAILED',
    responseCode: kind ?? body.responseCode,
  });
  return { ok: false, code, message: body.error?.message ?? '' };
}

/** Reads a GraphQL answer: `data[field]` on success, else the first error's contract code. */
export function graphqlOutcome<T = unknown>(response: GraphQLResponse, field: string): Outcome<T> {
  const error = response.errors?.[0];
  if (error) return { ok: false, code: error.extensions?.code ?? 'GRAPHQL_ERROR', message: error.message };
  return { ok: true, value: response.data?.[field] as T };
}

/**
 * graphqlServiceOutcome, or GraphQL's own refusal of a variable its type does not allow: HTTP 400,
 * BAD_USER_INPUT on every error (one per field refused), naming the field.
 */
export function graphqlTypedOutcome<T>(response: GraphQLResponse, field: string): Outcome<T> {
  const outcome = graphqlOutcome<T>(response, field);
  if (!outcome.ok && outcome.code === 'BAD_USER_INPUT') {
    expect({ status: response.status, codes: [...new Set(response.errors!.map((error) => error.extensions?.code))] }).toEqual({ status: 400, codes: ['BAD_USER_INPUT'] });
    return outcome;
  }
  return graphqlServiceOutcome<T>(response, field);
}

/**
 * graphqlOutcome, holding a failure to the shape of our services' errors on the way (as restOutcome
 * does the envelope): HTTP 200, one error, its extensions.responseCode the kind of its code. A masked
 * unexpected error carries its code only (src/server.ts formatGraphQLError).
 */
export function graphqlServiceOutcome<T>(response: GraphQLResponse, field: string, overrides: KindOverrides = {}): Outcome<T> {
  const outcome = graphqlOutcome<T>(response, field);
  if (!outcome.ok) {
    const masked = outcome.code === 'INTERNAL_SERVER_ERROR';
    expect({ status: response.status, errors: response.errors?.length, responseCode: response.errors?.[0]?.extensions?.responseCode }).toEqual({
      status: 200,
      errors: 1,
      responseCode: masked ? undefined : kindOf(outcome.code, overrides),
    });
  }
  return outcome;
}
