// Shared arrangements of the PII suites (REST and GraphQL): sample records and a fake Presidio
// analyzer behind an HTTP stub, so both transports are checked against the same answers.
import type { HttpStub, StubAnswer, StubRequest } from './http-stub.js';

/** Thirty records: personal data only in nested fields, and a phone number only from record 10 on. */
export function customerRecords(): Record<string, unknown>[] {
  return Array.from({ length: 30 }, (_, i) => ({
    id: `order-${i}`,
    order_ref: `${4155552600 + i}`,
    total: 100 + i,
    customer: {
      contact: { email: `customer${i}@example.com`, ...(i >= 10 ? { mobile: `+91 98765 ${String(43210 + i)}` } : {}) },
      payment: { iban: i % 2 ? 'DE89 3704 0044 0532 0130 00' : 'GB82 WEST 1234 5698 7654 32' },
    },
    items: [{ sku: `SKU-${i}`, qty: 1 + (i % 3) }],
  }));
}

/** What the built-in detectors make of customerRecords(), as the contract's findings. */
export const CUSTOMER_FINDINGS = [
  {
    field: 'customer.contact.email',
    type: 'email',
    score: 0.97,
    reason: [
      { code: 'email', resourceKey: 'pii.value.email', region: '', score: 0.95 },
      { code: 'field_name', resourceKey: 'pii.field_name.email', region: '', score: 0.45 },
    ],
  },
  {
    field: 'customer.contact.mobile',
    type: 'phone',
    score: 0.92,
    reason: [
      { code: 'phone', resourceKey: 'pii.value.phone', region: 'IN', score: 0.85 },
      { code: 'field_name', resourceKey: 'pii.field_name.phone', region: '', score: 0.45 },
    ],
  },
  {
    field: 'customer.payment.iban',
    type: 'iban',
    score: 0.98,
    reason: [
      { code: 'iban', resourceKey: 'pii.value.iban', region: 'DE', score: 0.49 },
      { code: 'iban', resourceKey: 'pii.value.iban', region: 'GB', score: 0.49 },
      { code: 'field_name', resourceKey: 'pii.field_name.iban', region: '', score: 0.45 },
    ],
  },
];

/** Records for the downstream detector: each field's values mapped by the fake analyzer below. */
export const DOWNSTREAM_RECORDS = [
  { user: { email: 'jane@example.com', name: 'Jane Doe', phone: '+1 415 555 2671', pan: 'ABCPE1234F', joined: '2024-01-01', licence: 'D1234567' } },
  { user: { email: 'john@example.org', name: 'John Smith', phone: 'n/a', pan: 'ABCPE1234F', joined: '2024-02-02', licence: 'D7654321' } },
];

/** The findings the gateway makes of the fake analyzer's answers for DOWNSTREAM_RECORDS. */
export const DOWNSTREAM_FINDINGS = [
  {
    field: 'user.email',
    type: 'email',
    score: 1,
    reason: [
      { code: 'emailrecognizer', resourceKey: 'pii.presidio.emailrecognizer', region: '', score: 1 },
      { code: 'field_name', resourceKey: 'pii.field_name.email', region: '', score: 0.45 },
    ],
  },
  // An entity type we have no name for passes through in lower case, with its region.
  { field: 'user.licence', type: 'us_driver_license', score: 0.6, reason: [{ code: 'uslicenserecognizer', resourceKey: 'pii.presidio.uslicenserecognizer', region: 'US', score: 0.6 }] },
  { field: 'user.name', type: 'name', score: 0.85, reason: [{ code: 'spacyrecognizer', resourceKey: 'pii.presidio.spacyrecognizer', region: '', score: 0.85 }] },
  {
    field: 'user.pan',
    type: 'pan',
    score: 0.92,
    reason: [
      { code: 'inpanrecognizer', resourceKey: 'pii.presidio.inpanrecognizer', region: 'IN', score: 0.85 },
      { code: 'field_name', resourceKey: 'pii.field_name.pan', region: '', score: 0.45 },
    ],
  },
  // One phone number among two values: v = 0.75 / 2, with the name's 0.45: 1 - 0.625 × 0.55.
  {
    field: 'user.phone',
    type: 'phone',
    score: 0.66,
    reason: [
      { code: 'field_name', resourceKey: 'pii.field_name.phone', region: '', score: 0.45 },
      { code: 'phonerecognizer', resourceKey: 'pii.presidio.phonerecognizer', region: '', score: 0.38 },
    ],
  },
];

const RECOGNISERS: [RegExp, string, number, string][] = [
  [/\S+@\S+/g, 'EMAIL_ADDRESS', 1, 'EmailRecognizer'],
  [/\+\d[\d ]{7,}\d/g, 'PHONE_NUMBER', 0.75, 'PhoneRecognizer'],
  [/[A-Z]{5}\d{4}[A-Z]/g, 'IN_PAN', 0.85, 'InPanRecognizer'],
  [/(Jane|John) [A-Z][a-z]+/g, 'PERSON', 0.85, 'SpacyRecognizer'],
  [/\d{4}-\d{2}-\d{2}/g, 'DATE_TIME', 0.95, 'DateRecognizer'],
  [/D\d{7}/g, 'US_DRIVER_LICENSE', 0.6, 'UsLicenseRecognizer'],
];

/** A Presidio analyzer in miniature: answers POST /analyze as Presidio does, from a few patterns. */
export function fakePresidio(request: StubRequest): StubAnswer {
  if (request.method !== 'POST' || request.path !== '/analyze') return { status: 404, body: { error: 'not found' } };
  const { text } = JSON.parse(request.body) as { text: string };
  const results = RECOGNISERS.flatMap(([pattern, entity_type, score, recognizer_name]) =>
    [...text.matchAll(pattern)].map((match) => ({
      entity_type,
      start: match.index,
      end: match.index + match[0].length,
      score,
      analysis_explanation: null,
      recognition_metadata: { recognizer_name, recognizer_identifier: `${recognizer_name}_1` },
    })),
  );
  return { status: 200, body: results };
}

/** The body of the stub's call about `field` (by its context words' text), parsed. */
export function callFor(stub: HttpStub, text: string): Record<string, unknown> | undefined {
  const found = stub.requests.find((request) => (JSON.parse(request.body) as { text: string }).text === text);
  return found && (JSON.parse(found.body) as Record<string, unknown>);
}
