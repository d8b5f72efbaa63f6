// The built-in PII detectors and the scoring (issue 8, contract 2.6): each value detector on valid
// values and on look-alikes that fail its check, field-name evidence, fields collected by dotted
// path across many records, how evidence combines into a score, and precision and recall on the
// labelled corpus (test/support/pii-corpus.ts; also printed by bench/pii.ts).
import { describe, expect, it } from '@jest/globals';
import { ibanValid, luhnValid, verhoeffValid } from '../../src/modules/pii/checksums.js';
import {
  aadhaarForm,
  detectValue,
  ibanCountry,
  ipv4Confidence,
  isCardNumber,
  isEmail,
  isIpv6,
  isPan,
  looksLikeAddress,
  looksLikeBirthDate,
  looksLikePersonName,
  passportRegion,
  ssnForm,
} from '../../src/modules/pii/detectors.js';
import { nameEvidence, nameWords } from '../../src/modules/pii/field-names.js';
import { collectFields, TooManyFields } from '../../src/modules/pii/fields.js';
import { phoneDetector } from '../../src/modules/pii/phone.js';
import { createPiiService, MAX_VALUES_PER_FIELD, scoreField } from '../../src/modules/pii/service.js';
import type { ValueEvidence } from '../../src/modules/pii/types.js';
import { BuiltinPiiDetector } from '../../src/platform/pii-detector/builtin.js';
import { PII_CORPUS, scoreCorpus } from '../support/pii-corpus.js';

const service = createPiiService(new BuiltinPiiDetector(detectValue), { maxRecords: 1000, maxBytes: 1024 * 1024, minScore: 0.5 });

describe('check digits', () => {
  it.each([
    ['79927398713', true],
    ['4111111111111111', true],
    ['378282246310005', true],
    ['79927398710', false],
    ['4111111111111112', false],
    ['', false],
  ])('Luhn of %s is %s', (digits, valid) => {
    expect(luhnValid(digits)).toBe(valid);
  });

  it.each([
    ['2363', true], // the textbook example: 236 with check digit 3
    ['234123412346', true],
    ['672803852808', true],
    ['2364', false],
    ['234123412347', false],
    ['672803852801', false],
  ])('Verhoeff of %s is %s', (digits, valid) => {
    expect(verhoeffValid(digits)).toBe(valid);
  });

  it.each([
    ['DE89370400440532013000', true],
    ['GB82WEST12345698765432', true],
    ['FR1420041010050500013M02606', true],
    ['NO9386011117947', true],
    ['DE89370400440532013001', false], // check digits do not match
    ['DE8937040044053201300', false], // one short for Germany
    ['XX89370400440532013000', false], // no such country
    ['de89370400440532013000', false], // the electronic form is upper case
  ])('IBAN %s is %s', (iban, valid) => {
    expect(ibanValid(iban)).toBe(valid);
  });
});

describe('value detectors', () => {
  it.each([
    ['jane.doe@example.com', true],
    ['j.smith+news@mail.co.uk', true],
    ['support@xn--bcher-kva.example', true],
    ['john..doe@example.com', false],
    ['john@localhost', false],
    ['john@exa_mple.com', false],
    ['user@-example.com', false],
    ['@example.com', false],
    [`${'a'.repeat(65)}@example.com`, false],
  ])('e-mail %s: %s', (value, expected) => {
    expect(isEmail(value)).toBe(expected);
  });

  it.each([
    ['4111111111111111', true],
    ['4012 8888 8888 1881', true],
    ['5555-5555-5555-4444', true],
    ['378282246310005', true],
    ['2221482199351817', true],
    ['4111111111111112', false], // fails Luhn
    ['7924402685995280', false], // passes Luhn, but no card scheme starts with 7
    ['4111  1111 1111 1111', false], // not how a card number is grouped
    ['0000000000000000', false],
    ['41111111111111111111', false], // 20 digits
  ])('payment card %s: %s', (value, expected) => {
    expect(isCardNumber(value)).toBe(expected);
  });

  it.each([
    ['DE89 3704 0044 0532 0130 00', 'DE'],
    ['gb82 west 1234 5698 7654 32', 'GB'],
    ['CH9300762011623852957', 'CH'],
    ['CH9300762011623852958', undefined],
    ['DE89-3704-0044-0532-0130-00', undefined],
  ])('IBAN %s: country %s', (value, country) => {
    expect(ibanCountry(value)).toBe(country);
  });

  it.each([
    ['2341 2341 2346', 'grouped'],
    ['7393-3633-8756', 'grouped'],
    ['672803852808', 'bare'],
    ['2341 2341 2347', undefined], // fails Verhoeff
    ['0123 4567 8901', undefined], // Aadhaar never starts with 0 or 1
    ['2341 23412346', undefined], // grouped one way, then another
  ])('Aadhaar %s: %s', (value, form) => {
    expect(aadhaarForm(value)).toBe(form);
  });

  it.each([
    ['123-45-6788', 'dashed'],
    ['536228079', 'bare'],
    ['000-12-3456', undefined],
    ['666-12-3456', undefined],
    ['912-12-3456', undefined],
    ['123-00-4567', undefined],
    ['123-45-0000', undefined],
    ['078-05-1120', undefined], // the wallet-card sample number
  ])('SSN %s: %s', (value, form) => {
    expect(ssnForm(value)).toBe(form);
  });

  it.each([
    ['ABCPE1234F', true],
    ['AAACR5055K', true],
    ['ABCDX1234F', false], // X is no holder kind
    ['abcpe1234f', false],
    ['ABCPE12345', false],
  ])('PAN %s: %s', (value, expected) => {
    expect(isPan(value)).toBe(expected);
  });

  it.each([
    ['J8369854', 'IN'],
    ['A1234567', 'IN'], // a letter and seven digits: India's own format
    ['AB123456', ''],
    ['512837465', ''],
    ['AB12', undefined],
    ['pending', undefined],
  ])('passport-like %s: region %j', (value, region) => {
    expect(passportRegion(value)).toBe(region);
  });

  it.each([
    ['8.8.8.8', 0.75],
    ['192.168.1.20', 0.55],
    ['10.0.0.12', 0.55],
    ['127.0.0.1', undefined],
    ['0.0.0.0', undefined],
    ['239.1.2.3', undefined],
    ['256.1.2.3', undefined],
    ['01.02.03.04', undefined],
  ])('IPv4 %s: confidence %s', (value, confidence) => {
    expect(ipv4Confidence(value)).toBe(confidence);
  });

  it.each([
    ['2001:db8:85a3::8a2e:370:7334', true],
    ['fe80::1ff:fe23:4567:890a', true],
    ['::1', false],
    ['2001:db8::g', false],
  ])('IPv6 %s: %s', (value, expected) => {
    expect(isIpv6(value)).toBe(expected);
  });

  it.each([
    ['+91 98765 43210', { region: 'IN', confidence: 0.85 }],
    ['+1 415 555 2671', { region: 'US', confidence: 0.85 }],
    ['+44 20 7946 0958', { region: 'GB', confidence: 0.85 }],
    ['(415) 555-2671', { region: 'US', confidence: 0.55 }],
    ['020 7946 0958', { region: 'GB', confidence: 0.55 }],
    ['9876543210', { region: 'IN', confidence: 0.3 }],
    ['4155552671', { region: 'US', confidence: 0.3 }],
    ['ORD-4155552671', undefined], // letters: an order id, whatever digits it holds
    ['2024-01-15', undefined], // a date, though Germany would take the digits
    ['07400 123456', { region: 'GB', confidence: 0.55 }],
    ['07911 123456', { region: 'GG', confidence: 0.55 }], // the UK plan, Guernsey's range
    ['098765 43210', { region: 'IN', confidence: 0.55 }],
    ['5555555555', undefined], // no plan has it
    ['+999 12345678', undefined], // no such country code
    ['12345678', undefined], // no trunk 0, not ten digits
  ])('phone %s: %j', (value, expected) => {
    expect(phoneDetector.detect(value)).toEqual(expected);
  });

  it('says which detector and region fired, once per kind', () => {
    expect(detectValue(' DE89370400440532013000 ')).toEqual([{ type: 'iban', code: 'iban', region: 'DE', confidence: 0.97 }]);
    expect(detectValue('2341 2341 2346')).toEqual([{ type: 'aadhaar', code: 'aadhaar', region: 'IN', confidence: 0.85 }]);
    // Nine bare digits: an SSN or a US passport as far as the value can tell (both weak), never a phone.
    expect(
      detectValue('536228079')
        .map((hit) => hit.type)
        .sort(),
    ).toEqual(['passport', 'ssn']);
    expect(detectValue('')).toEqual([]);
    expect(detectValue('x'.repeat(300))).toEqual([]);
  });
});

describe('plausibility of kinds recognised by name', () => {
  it.each([
    ['Alice', true],
    ["O'Brien", true],
    ['José María García', true],
    ['Müller', true],
    ['12345', false],
    ['web-01', false],
    ['Alice 2', false],
    ['A', false],
  ])('person name %s: %s', (value, expected) => {
    expect(looksLikePersonName(value)).toBe(expected);
  });

  it.each([
    ['1990-05-17', true],
    ['17/05/1990', true],
    ['05/17/1990', true],
    ['1985-12-31T00:00:00Z', true],
    ['3 March 1972', true],
    ['March 3, 1972', true],
    ['1990-02-30', false],
    ['2999-01-01', false],
    ['1899-12-31', false],
    ['N/A', false],
  ])('date of birth %s: %s', (value, expected) => {
    expect(looksLikeBirthDate(value, new Date('2026-01-01T00:00:00Z'))).toBe(expected);
  });

  it.each([
    ['221B Baker Street, London NW1 6XE', true],
    ['1600 Amphitheatre Parkway', true],
    ['n/a', false],
    ['London', false],
  ])('address %s: %s', (value, expected) => {
    expect(looksLikeAddress(value)).toBe(expected);
  });
});

describe('field-name evidence', () => {
  it('splits names into words whatever their case style', () => {
    expect(nameWords('billingAddressLine1')).toEqual(['billing', 'address', 'line', '1']);
    expect(nameWords('EMAIL_ADDRESS')).toEqual(['email', 'address']);
    expect(nameWords('IPAddress')).toEqual(['ip', 'address']);
    expect(nameWords('e-mail')).toEqual(['e', 'mail']);
  });

  it.each([
    ['customerEmail', [['email', 0.45]]],
    ['contact.mobile_no', [['phone', 0.45]]],
    ['client_ip', [['ip_address', 0.45]]],
    ['ip_address', [['ip_address', 0.45]]],
    ['home_address', [['address', 0.8]]],
    ['mac_address', []],
    ['date_of_birth', [['date_of_birth', 0.85]]],
    ['first_name', [['name', 0.85]]],
    ['passenger.name', [['name', 0.85]]],
    ['name', [['name', 0.55]]],
    ['product.name', []],
    ['product_name', []],
    ['order_id', []],
    ['amount', []],
  ])('%s says %j', (path, expected) => {
    expect(nameEvidence(path).map((evidence) => [evidence.type, evidence.strength])).toEqual(expected);
  });
});

describe('fields', () => {
  it('collects every nested field by dotted path across all records, arrays transparent, booleans and nulls left out', () => {
    const records = [
      { id: 1, user: { email: 'a@example.com', address: { city: 'Pune' } }, tags: ['x', 'y'], active: true },
      { id: 2, user: { email: 'b@example.com', phones: ['+91 98765 43210'] }, contacts: [{ email: 'c@example.com' }, { email: null }] },
      { id: 2, user: { email: 'a@example.com' }, note: '   ' },
    ];
    const fields = Object.fromEntries(collectFields(records, { maxValuesPerField: 10, maxFields: 100 }).map((field) => [field.path, field.values]));
    expect(fields).toEqual({
      id: ['1', '2'],
      'user.email': ['a@example.com', 'b@example.com'],
      'user.address.city': ['Pune'],
      tags: ['x', 'y'],
      'user.phones': ['+91 98765 43210'],
      'contacts.email': ['c@example.com'],
    });
  });

  it('keeps at most the given number of distinct values per field and refuses too many fields', () => {
    const records = Array.from({ length: 50 }, (_, i) => ({ n: i }));
    expect(collectFields(records, { maxValuesPerField: 7, maxFields: 10 })[0]!.values).toHaveLength(7);
    expect(() => collectFields([Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, 'x']))], { maxValuesPerField: 7, maxFields: 10 })).toThrow(TooManyFields);
  });
});

describe('scoring', () => {
  const evidence = (field: string, type: string, hits: number, confidence: number, region = ''): ValueEvidence => ({
    field,
    type,
    code: type,
    resourceKey: `pii.value.${type}`,
    region,
    hits,
    confidenceSum: hits * confidence,
  });

  it('combines value and name evidence as 1 - (1 - v)(1 - k), with both reasons listed strongest first', () => {
    const finding = scoreField({ path: 'contact.phone', values: ['a', 'b', 'c', 'd'] }, [evidence('contact.phone', 'phone', 2, 0.85, 'IN')], 0.5);
    // v = 2 × 0.85 / 4 = 0.425; k = 0.45; 1 - 0.575 × 0.55 = 0.68375
    expect(finding).toEqual({
      field: 'contact.phone',
      type: 'phone',
      score: 0.68,
      reason: [
        { code: 'field_name', resourceKey: 'pii.field_name.phone', region: '', score: 0.45 },
        { code: 'phone', resourceKey: 'pii.value.phone', region: 'IN', score: 0.43 },
      ],
    });
  });

  it('raises the score as more values agree (the original lowered it)', () => {
    const values = ['1', '2', '3', '4'];
    const scores = [1, 2, 4].map((hits) => scoreField({ path: 'value', values }, [evidence('value', 'email', hits, 0.95)], 0)!.score);
    expect(scores).toEqual([0.24, 0.48, 0.95]);
  });

  it('does not report a value-checked kind on its name alone, nor anything under the threshold', () => {
    expect(scoreField({ path: 'email', values: ['n/a'] }, [], 0.5)).toBeUndefined();
    expect(scoreField({ path: 'value', values: ['1', '2'] }, [evidence('value', 'phone', 1, 0.85)], 0.5)).toBeUndefined();
  });

  it('weighs a name-recognised kind by the share of plausible values', () => {
    expect(scoreField({ path: 'first_name', values: ['Alice', 'Bob'] }, [], 0.5)?.score).toBe(0.85);
    expect(scoreField({ path: 'first_name', values: ['Alice', '1234'] }, [], 0.5)).toBeUndefined(); // 0.85 × 1/2
  });

  it('reports the kind with the highest score when several fired', () => {
    const finding = scoreField({ path: 'value', values: ['x'] }, [evidence('value', 'ssn', 1, 0.2), evidence('value', 'passport', 1, 0.3)], 0.25);
    expect(finding?.type).toBe('passport');
  });
});

describe('the built-in analysis', () => {
  it('finds personal data in nested fields across many records and lists only those fields', async () => {
    const records = Array.from({ length: 40 }, (_, i) => ({
      id: `evt-${i}`,
      order_id: `${4155552600 + i}`,
      amount: i * 10,
      customer: { profile: { email: `user${i}@example.com`, dob: `19${70 + (i % 20)}-0${1 + (i % 9)}-1${i % 9}` }, cards: [{ number: i % 2 ? '4111 1111 1111 1111' : '5555 5555 5555 4444' }] },
      device: { ip: `81.2.69.${i}`, os: 'linux' },
    }));
    const findings = await service.analyze('orders', records);
    expect(findings.map((finding) => [finding.field, finding.type])).toEqual([
      ['customer.cards.number', 'credit_card'],
      ['customer.profile.dob', 'date_of_birth'],
      ['customer.profile.email', 'email'],
      ['device.ip', 'ip_address'],
    ]);
  });

  it('judges a field on all its values: a few e-mails among many other values are not enough', async () => {
    const records = Array.from({ length: 20 }, (_, i) => ({ note: i < 2 ? `n${i}@example.com` : `note number ${i}` }));
    expect(await service.analyze('notes', records)).toEqual([]);
  });

  it(`examines at most ${MAX_VALUES_PER_FIELD} distinct values per field`, async () => {
    const records = Array.from({ length: MAX_VALUES_PER_FIELD * 2 }, (_, i) => ({ code: i < MAX_VALUES_PER_FIELD ? `item ${i}` : `u${i}@example.com` }));
    expect(await service.analyze('codes', records)).toEqual([]);
  });

  it(`scores at least 0.95 precision and recall on the labelled corpus of ${PII_CORPUS.length} values`, async () => {
    expect(PII_CORPUS.length).toBeGreaterThanOrEqual(200);
    const record = (field: string, value: unknown) => field.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
    const score = await scoreCorpus(async (field, value) => (await service.analyze('corpus', [record(field, value)]))[0]?.type ?? null);
    expect({ precision: score.precision >= 0.95, recall: score.recall >= 0.95, mistakes: score.mistakes }).toEqual({ precision: true, recall: true, mistakes: expect.any(Array) });
    expect(score.truePositives + score.falseNegatives).toBe(PII_CORPUS.filter((entry) => entry[2] !== null).length);
  });
});
