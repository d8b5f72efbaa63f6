// PII analysis (contract 2.6, 4.2, 7; issue 8), written once for both transports: with the built-in
// detectors (the run's gateway, PII_MAX_RECORDS 50 and PII_MAX_BYTES 16 kB), and with a downstream
// detector (a second gateway whose PII_SERVICE_URL is a fake Presidio analyzer started here).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startHttpStub, type HttpStub } from '../support/http-stub.js';
import { callFor, CUSTOMER_FINDINGS, customerRecords, DOWNSTREAM_FINDINGS, DOWNSTREAM_RECORDS, fakePresidio } from '../support/pii.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export const BUILT_IN_ENV = { PII_MAX_RECORDS: '50', PII_MAX_BYTES: '16kb' };

export interface PiiDriver {
  /** The findings for `records` of `datasetId`, asked of gateway `target`. */
  analyze(target: TestGateway, datasetId: string, records: unknown[]): Promise<Outcome<unknown[]>>;
}

const INVALID = 'DATA_ANALYZE_PII_INVALID_INPUT';

export function piiScenarios(ctx: SuiteContext<PiiDriver>): void {
  const analyze = (datasetId: string, records: unknown[]) => ctx.driver.analyze(ctx.gw, datasetId, records);

  describe('with the built-in detectors', () => {
    it('answers one finding per personal field: {field, type, score, reason[{code, resourceKey, region, score}]}', async () => {
      expect(expectOk(await analyze('orders', [{ email: 'jane@example.com', amount: 10 }]))).toEqual([
        {
          field: 'email',
          type: 'email',
          score: 0.97,
          reason: [
            { code: 'email', resourceKey: 'pii.value.email', region: '', score: 0.95 },
            { code: 'field_name', resourceKey: 'pii.field_name.email', region: '', score: 0.45 },
          ],
        },
      ]);
    });

    it('examines every record and every nested field by dotted path, and lists only the personal ones', async () => {
      // The original looked at the first record's top-level keys only: it would find nothing here.
      expect(expectOk(await analyze('orders', customerRecords()))).toEqual(CUSTOMER_FINDINGS);
    });

    it('says which detector and region fired for regional identifiers', async () => {
      const result = expectOk(await analyze('kyc', [{ kyc: { aadhaar: '2341 2341 2346', pan: 'ABCPE1234F', ssn: '123-45-6788' } }])) as { field: string; reason: unknown[] }[];
      expect(result.map((finding) => [finding.field, finding.reason[0]])).toEqual([
        ['kyc.aadhaar', { code: 'aadhaar', resourceKey: 'pii.value.aadhaar', region: 'IN', score: 0.85 }],
        ['kyc.pan', { code: 'pan', resourceKey: 'pii.value.pan', region: 'IN', score: 0.85 }],
        ['kyc.ssn', { code: 'ssn', resourceKey: 'pii.value.ssn', region: 'US', score: 0.75 }],
      ]);
    });

    it('finds nothing in look-alikes: numbers failing Luhn, invalid IBANs, order ids shaped like phone numbers', async () => {
      const data = [
        { card_number: '4111111111111112', iban: 'DE89370400440532013001', order_id: '4155552671', aadhaar: '2341 2341 2347' },
        { card_number: '4111 1111 1111 1113', iban: 'GB82WEST12345698765433', order_id: '9876543210', aadhaar: '6728 0385 2801' },
      ];
      expect(expectOk(await analyze('lookalikes', data))).toEqual([]);
    });

    it('refuses more records than PII_MAX_RECORDS (50 here), and records larger than PII_MAX_BYTES (16 kB here)', async () => {
      expectFailure(
        await analyze(
          'd',
          Array.from({ length: 51 }, (_, i) => ({ n: i })),
        ),
        INVALID,
        /^data holds 51 records; at most 50 fit in one call \(PII_MAX_RECORDS\)$/,
      );
      expectFailure(await analyze('d', [{ text: 'x'.repeat(17 * 1024) }]), INVALID, /^the records take \d+ bytes; at most 16384 fit in one call \(PII_MAX_BYTES\)$/);
    });

    // The service's rules (issue 34; REST's schema held them before): one message on both transports.
    it('refuses no records, a record that is not an object, and a dataset_id empty or over 200 characters, saying which', async () => {
      expectFailure(await analyze('d', []), INVALID, /^data must be a non-empty array of record objects$/);
      expectFailure(await analyze('d', [{ a: 1 }, 'text']), INVALID, /^data\/1 is not a JSON object$/);
      expectFailure(await analyze('', [{ a: 1 }]), INVALID, /^dataset_id must be a non-empty string of at most 200 characters$/);
      expectFailure(await analyze('d'.repeat(201), [{ a: 1 }]), INVALID, /^dataset_id must be a non-empty string of at most 200 characters$/);
    });

    it('refuses records nested deeper than 32 levels, naming where', async () => {
      let deep: Record<string, unknown> = { leaf: 'x' };
      for (let i = 0; i < 40; i++) deep = { level: deep };
      expectFailure(await analyze('d', [deep]), INVALID, /^data\/0\/level\/level\/.* is nested deeper than 32 levels$/);
    });
  });

  describe('with a downstream detector (PII_SERVICE_URL)', () => {
    let presidio: HttpStub;
    let downstream: TestGateway;
    beforeAll(async () => {
      presidio = await startHttpStub();
      downstream = await startTestGateway({ PII_SERVICE_URL: presidio.url, PII_SERVICE_TIMEOUT_MS: '500' });
    });
    afterAll(async () => {
      await downstream?.stop();
      await presidio?.close();
    });
    const analyzeDownstream = () => ctx.driver.analyze(downstream, 'users', DOWNSTREAM_RECORDS);

    it("sends each field's values to the analyzer and maps its entities to the same findings", async () => {
      presidio.requests.length = 0;
      presidio.answer = fakePresidio;
      expect(expectOk(await analyzeDownstream())).toEqual(DOWNSTREAM_FINDINGS);
      // One call per field, values one per line, the field's name as context words.
      expect(presidio.requests).toHaveLength(6);
      expect(presidio.requests.every((request) => request.method === 'POST' && request.path === '/analyze' && request.headers['content-type'] === 'application/json')).toBe(true);
      expect(callFor(presidio, 'jane@example.com\njohn@example.org')).toEqual({ text: 'jane@example.com\njohn@example.org', language: 'en', context: ['email'], correlation_id: 'users' });
    });

    it.each([
      [401, { detail: 'Not authenticated' }],
      [500, { detail: 'Internal error' }],
    ])('fails with ERR_BAD_REQUEST naming the status when the analyzer answers %d', async (status, body) => {
      presidio.answer = () => ({ status, body });
      expectFailure(await analyzeDownstream(), 'ERR_BAD_REQUEST', new RegExp(`^Request failed with status code ${status}: the PII detector refused the call \\(.*${body.detail}.*\\)$`));
    });

    it('fails with ERR_BAD_REQUEST when the analyzer does not answer in time (PII_SERVICE_TIMEOUT_MS, 500 ms here)', async () => {
      presidio.answer = () => ({ status: 200, body: [], delayMs: 2_000 });
      const started = Date.now();
      expectFailure(await analyzeDownstream(), 'ERR_BAD_REQUEST', /did not answer within 500 ms/);
      expect(Date.now() - started).toBeLessThan(1_900);
    });

    it('fails with ERR_BAD_REQUEST when the analyzer answers something that is not a list of results', async () => {
      presidio.answer = () => ({ status: 200, body: { result: 'ok' } });
      expectFailure(await analyzeDownstream(), 'ERR_BAD_REQUEST', /answered HTTP 200 with a body that is not a list of recognizer results/);
      presidio.answer = () => ({ status: 200, text: '<html>proxy</html>' });
      expectFailure(await analyzeDownstream(), 'ERR_BAD_REQUEST', /answered HTTP 200 with a body that is not JSON/);
    });

    it('checks the request before calling the analyzer', async () => {
      presidio.requests.length = 0;
      expectFailure(await ctx.driver.analyze(downstream, 'users', ['x']), INVALID, /data\/0/);
      expect(presidio.requests).toEqual([]);
    });
  });
}
