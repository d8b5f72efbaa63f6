// A labelled corpus for the built-in PII detectors: [field name, value, the kind expected or null].
// Each entry is analysed on its own, as one record holding one field. Positives carry real check
// digits (Luhn, IBAN mod 97, Verhoeff) or real numbering plans; negatives are look-alikes: numbers
// failing those checks, order ids shaped like phone numbers, dates, versions, hashes, product names.
// Most field names are neutral, so values must speak for themselves; the rest test name evidence.
// Used by test/modules/pii-detectors.test.ts and bench/pii.ts.

export type CorpusEntry = readonly [field: string, value: string | number, expected: string | null];

export const PII_CORPUS: readonly CorpusEntry[] = [
  // E-mail addresses
  ['value', 'jane.doe@example.com', 'email'],
  ['value', 'j.smith+news@mail.co.uk', 'email'],
  ['value', 'a_b-c@sub.domain.org', 'email'],
  ['value', 'rahul.k@company.in', 'email'],
  ['value', "o'connor@example.ie", 'email'],
  ['col_3', 'USER123@EXAMPLE.COM', 'email'],
  ['contact', 'support@xn--bcher-kva.example', 'email'],
  ['customer.email', 'maria@example.es', 'email'],
  ['emailAddress', 'li.wei@example.cn', 'email'],
  ['value', 'x@y.io', 'email'],
  ['value', 'john.doe@', null],
  ['value', '@example.com', null],
  ['value', 'john..doe@example.com', null],
  ['value', 'john@localhost', null],
  ['value', 'john@example', null],
  ['value', 'john@exa_mple.com', null],
  ['value', 'user@-example.com', null],
  ['value', 'user@example.c', null],
  ['value', 'not an email at all', null],
  ['value', 'team @ example.com', null],

  // Phone numbers: international form, or national form as people write it
  ['value', '+91 98765 43210', 'phone'],
  ['value', '+1 415 555 2671', 'phone'],
  ['value', '+44 20 7946 0958', 'phone'],
  ['value', '+44 7911 123456', 'phone'],
  ['value', '+33 1 42 68 53 00', 'phone'],
  ['value', '+49 30 901820', 'phone'],
  ['value', '+61 2 9374 4000', 'phone'],
  ['value', '+919876543210', 'phone'],
  ['value', '(415) 555-2671', 'phone'],
  ['value', '415-555-2671', 'phone'],
  ['value', '020 7946 0958', 'phone'],
  ['value', '098765 43210', 'phone'],
  ['mobile', '9876543210', 'phone'],
  ['phone_number', '4155552671', 'phone'],
  ['contact.tel', '02079460958', 'phone'],
  ['customerPhone', '+1-212-456-7890', 'phone'],
  // Order ids, references and dates shaped like phone numbers
  ['order_id', '4155552671', null],
  ['order_id', '9876543210', null],
  ['value', '9876543210', null],
  ['reference', '02079460958', null],
  ['value', 'ORD-4155552671', null],
  ['value', '1234567890', null],
  ['value', '+1 234 567', null],
  ['value', '+999 12345678', null],
  ['value', '2024-01-15', null],
  ['value', '15/01/2024', null],
  ['invoice_no', 202401150001, null],
  ['value', '12345678', null],

  // Payment card numbers (Luhn and an issuer's prefix and length)
  ['value', '4111111111111111', 'credit_card'],
  ['value', '4012 8888 8888 1881', 'credit_card'],
  ['value', '5555-5555-5555-4444', 'credit_card'],
  ['value', '378282246310005', 'credit_card'],
  ['value', '6011111111111117', 'credit_card'],
  ['value', '3530111333300000', 'credit_card'],
  ['value', '4526018159083012', 'credit_card'],
  ['value', '4661318609139090', 'credit_card'],
  ['value', '5196030824628192', 'credit_card'],
  ['value', '2221482199351817', 'credit_card'],
  ['value', '349093786579750', 'credit_card'],
  ['value', '374323194875740', 'credit_card'],
  ['value', '6011911862527605', 'credit_card'],
  ['value', '6518955597971149', 'credit_card'],
  ['value', '3530710497465077', 'credit_card'],
  ['value', '36529170342360', 'credit_card'],
  ['value', '6267127684268465', 'credit_card'],
  ['card_number', '6759563212233073', 'credit_card'],
  ['payment.card', '4111 1111 1111 1111', 'credit_card'],
  ['value', 4111111111111111, 'credit_card'],
  // Failing Luhn, or Luhn-valid with no issuer
  ['value', '4526018159083013', null],
  ['value', '4661318609139091', null],
  ['value', '5196030824628193', null],
  ['value', '2221482199351818', null],
  ['value', '349093786579751', null],
  ['value', '374323194875741', null],
  ['value', '6011911862527606', null],
  ['value', '6518955597971140', null],
  ['value', '4111111111111112', null],
  ['value', '4111 1111 1111 1112', null],
  ['value', '7924402685995280', null],
  ['value', '9907866661760313', null],
  ['value', '1372159010928150', null],
  ['value', '0000000000000000', null],
  ['card_number', '4111-1111-1111-1110', null],

  // IBANs (country length and mod 97)
  ['value', 'DE89370400440532013000', 'iban'],
  ['value', 'GB82WEST12345698765432', 'iban'],
  ['value', 'FR1420041010050500013M02606', 'iban'],
  ['value', 'ES9121000418450200051332', 'iban'],
  ['value', 'IT60X0542811101000000123456', 'iban'],
  ['value', 'NL91ABNA0417164300', 'iban'],
  ['value', 'BE68539007547034', 'iban'],
  ['value', 'CH9300762011623852957', 'iban'],
  ['value', 'AT611904300234573201', 'iban'],
  ['value', 'PL61109010140000071219812874', 'iban'],
  ['value', 'NO9386011117947', 'iban'],
  ['value', 'IE29AIBK93115212345678', 'iban'],
  ['value', 'SA0380000000608010167519', 'iban'],
  ['value', 'AE070331234567890123456', 'iban'],
  ['value', 'DE89 3704 0044 0532 0130 00', 'iban'],
  ['account', 'gb82 west 1234 5698 7654 32', 'iban'],
  ['value', 'DE89370400440532013001', null],
  ['value', 'GB82WEST12345698765433', null],
  ['value', 'FR1420041010050500013M02607', null],
  ['value', 'ES9121000418450200051333', null],
  ['value', 'IT60X0542811101000000123457', null],
  ['value', 'NL91ABNA0417164301', null],
  ['value', 'BE68539007547035', null],
  ['value', 'CH9300762011623852958', null],
  ['value', 'XX89370400440532013000', null],
  ['value', 'DE8937040044053201300', null],
  ['iban', 'DE00370400440532013000', null],

  // IP addresses (loopback and "this network" point at no one)
  ['value', '203.0.113.42', 'ip_address'],
  ['value', '8.8.8.8', 'ip_address'],
  ['value', '198.51.100.7', 'ip_address'],
  ['value', '81.2.69.160', 'ip_address'],
  ['client_ip', '10.0.0.12', 'ip_address'],
  ['ip_address', '192.168.1.20', 'ip_address'],
  ['value', '2001:db8:85a3::8a2e:370:7334', 'ip_address'],
  ['value', '2001:0db8:0000:0000:0000:ff00:0042:8329', 'ip_address'],
  ['value', 'fe80::1ff:fe23:4567:890a', 'ip_address'],
  ['remote_addr', '2a00:1450:4009:80b::200e', 'ip_address'],
  ['value', '256.1.2.3', null],
  ['value', '1.2.3', null],
  ['value', '127.0.0.1', null],
  ['value', '0.0.0.0', null],
  ['value', '999.999.999.999', null],
  ['value', '01.02.03.04', null],
  ['value', '::1', null],
  ['value', '2001:db8::g', null],
  ['mac_address', '00:1A:2B:3C:4D:5E', null],
  ['value', '12:30:45', null],

  // US Social Security numbers (no area 000, 666, 9xx; no group 00; no serial 0000)
  ['value', '123-45-6788', 'ssn'],
  ['value', '212-67-1234', 'ssn'],
  ['value', '536-22-8079', 'ssn'],
  ['value', '401-98-7654', 'ssn'],
  ['ssn', '536228079', 'ssn'],
  ['social_security_number', '401-98-7654', 'ssn'],
  ['value', '000-12-3456', null],
  ['value', '666-12-3456', null],
  ['value', '900-12-3456', null],
  ['value', '123-00-4567', null],
  ['value', '123-45-0000', null],
  ['value', '078-05-1120', null],
  ['value', '536228079', null],

  // Aadhaar (Verhoeff check digit; never starts with 0 or 1)
  ['value', '2341 2341 2346', 'aadhaar'],
  ['value', '6728 0385 2808', 'aadhaar'],
  ['value', '6148 5253 8885', 'aadhaar'],
  ['value', '7393-3633-8756', 'aadhaar'],
  ['value', '3313 7353 7990', 'aadhaar'],
  ['value', '2751 1637 2651', 'aadhaar'],
  ['aadhaarNumber', '672803852808', 'aadhaar'],
  ['customer.aadhar', '367612220297', 'aadhaar'],
  ['aadhaar_no', '929975288203', 'aadhaar'],
  ['kyc.aadhaar', '317777412151', 'aadhaar'],
  ['value', '6728 0385 2801', null],
  ['value', '6148 5253 8888', null],
  ['value', '7393-3633-8759', null],
  ['value', '2341 2341 2347', null],
  ['value', '213962459578', null], // passes Verhoeff, but twelve bare digits could be anything
  ['aadhaar', '317777412154', null],
  ['value', '0123 4567 8901', null],

  // Indian PAN (fourth letter: holder's kind)
  ['value', 'ABCPE1234F', 'pan'],
  ['value', 'AAACR5055K', 'pan'],
  ['value', 'BNZPM2501F', 'pan'],
  ['value', 'AAFCB1234Q', 'pan'],
  ['pan_number', 'CQTPS7766L', 'pan'],
  ['value', 'ABCDX1234F', null],
  ['value', 'ABCP1234F', null],
  ['value', '12345ABCDE', null],
  ['value', 'ABCPE12345', null],
  ['value', 'ABCPE1234', null],

  // Passport-like ids: only with a field name that says so
  ['passport_no', 'J8369854', 'passport'],
  ['passportNumber', 'A1234567', 'passport'],
  ['traveller.passport', 'K1234567', 'passport'],
  ['passport', '512837465', 'passport'],
  ['value', 'A1234567', null],
  ['sku', 'AB123456', null],
  ['passport_no', 'pending', null],

  // Dates of birth: by field name, values must be past dates
  ['dob', '1990-05-17', 'date_of_birth'],
  ['date_of_birth', '17/05/1990', 'date_of_birth'],
  ['birthDate', '1985-12-31T00:00:00Z', 'date_of_birth'],
  ['patient.birthday', '3 March 1972', 'date_of_birth'],
  ['dob', 'March 3, 1972', 'date_of_birth'],
  ['created_date', '1990-05-17', null],
  ['value', '1990-05-17', null],
  ['birth_date', 'N/A', null],
  ['dob', '2999-01-01', null],
  ['dob', '1990-02-30', null],

  // Person names: by field name, values must read as names
  ['first_name', 'Alice', 'name'],
  ['lastName', "O'Brien", 'name'],
  ['full_name', 'José María García', 'name'],
  ['name', 'Bob Stone', 'name'],
  ['passenger.name', 'Priya Sharma', 'name'],
  ['customer.fullName', 'Chen Wei', 'name'],
  ['surname', 'Müller', 'name'],
  ['product_name', 'Widget Pro', null],
  ['product.name', 'Widget Pro', null],
  ['company.name', 'Acme Ltd', null],
  ['hostname', 'web-01', null],
  ['full_name', '12345', null],
  ['file_name', 'report.pdf', null],
  ['value', 'Alice Smith', null],
  ['dataset_name', 'Orders', null],

  // Addresses: by field name, values must read as addresses
  ['address', '221B Baker Street, London NW1 6XE', 'address'],
  ['home_address', '12 MG Road, Bengaluru 560001', 'address'],
  ['shipping.street', '1600 Amphitheatre Parkway', 'address'],
  ['address', 'n/a', null],
  ['email_address', 'not-an-email', null],
  ['value', '221B Baker Street, London', null],

  // Neither: identifiers, measurements, text
  ['value', '550e8400-e29b-41d4-a716-446655440000', null],
  ['value', 'd41d8cd98f00b204e9800998ecf8427e', null],
  ['value', 'hello world', null],
  ['value', 42, null],
  ['value', 3.14159, null],
  ['value', '1.2.3', null],
  ['value', '10.4.2.1-beta', null],
  ['value', '2026-11-22T06:46:51.123Z', null],
  ['value', 'https://example.com/path?q=1', null],
  ['value', 'SKU-0042-XL', null],
  ['status', 'ACTIVE', null],
  ['amount', 1999.99, null],
  ['value', 'Lorem ipsum dolor sit amet', null],
  ['value', '#ff8800', null],
  ['zip', '560001', null],
  ['count', 123456789, null],
];

export interface CorpusScore {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
  /** Entries the detectors got wrong, with what they said. */
  mistakes: { field: string; value: string | number; expected: string | null; got: string | null }[];
}

/** Precision and recall of `predict` on the corpus; a wrong kind counts as a miss and a false alarm. */
export async function scoreCorpus(predict: (field: string, value: string | number) => Promise<string | null>): Promise<CorpusScore> {
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  const mistakes: CorpusScore['mistakes'] = [];
  for (const [field, value, expected] of PII_CORPUS) {
    const got = await predict(field, value);
    if (got !== null && got === expected) truePositives += 1;
    if (got !== null && got !== expected) falsePositives += 1;
    if (expected !== null && got !== expected) falseNegatives += 1;
    if (got !== expected) mistakes.push({ field, value, expected, got });
  }
  return {
    truePositives,
    falsePositives,
    falseNegatives,
    precision: truePositives / (truePositives + falsePositives),
    recall: truePositives / (truePositives + falseNegatives),
    mistakes,
  };
}
