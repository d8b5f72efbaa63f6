// Field-name evidence: what a field's name says about the kind of data it holds. Names are split
// into words (snake_case, camelCase, kebab-case, dots), so `customerEmail`, `contact.e_mail` and
// `EMAIL_ADDRESS` all say "email". A name alone never proves a value-checked kind (its strength
// stays under the report threshold); for kinds no value can prove (a person's name, a date of
// birth, an address) the name is the evidence and values only rule it out.
import type { BuiltinPiiType } from './types.js';

export interface NameEvidence {
  type: BuiltinPiiType;
  /** 0 to 1. */
  strength: number;
}

/** Strength of a name that says a value-checked kind: under the 0.5 report threshold on its own. */
export const NAME_ONLY = 0.45;

/** Kinds recognised by field name, whose values are only checked for plausibility. */
export const NAME_GATED_TYPES: ReadonlySet<BuiltinPiiType> = new Set(['name', 'date_of_birth', 'address']);

/** Words of a field name, lower case: `billingAddressLine1` → billing, address, line, 1. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const hasAny = (words: ReadonlySet<string>, list: readonly string[]) => list.some((word) => words.has(word));

/** Words that make a "name" field something other than a person's name. */
const NOT_A_PERSON = [
  'product',
  'file',
  'filename',
  'company',
  'org',
  'organisation',
  'organization',
  'business',
  'dataset',
  'table',
  'column',
  'field',
  'app',
  'application',
  'host',
  'hostname',
  'device',
  'event',
  'item',
  'brand',
  'category',
  'city',
  'country',
  'state',
  'street',
  'domain',
  'bucket',
  'job',
  'task',
  'template',
  'service',
  'server',
  'project',
  'team',
  'group',
  'role',
  'type',
  'user',
  'username',
  'display',
  'screen',
  'nick',
  'nickname',
  'code',
  'key',
  'metric',
  'label',
  'tag',
  'topic',
  'queue',
  'model',
  'plan',
  'store',
  'shop',
  'merchant',
  'vendor',
  'bank',
  'branch',
  'network',
  'cluster',
  'node',
  'region',
  'zone',
  'database',
  'db',
  'schema',
  'index',
  'class',
];
/** Words that make a bare "name" field a person's. */
const PERSON_QUALIFIERS = [
  'first',
  'last',
  'full',
  'given',
  'middle',
  'family',
  'sur',
  'customer',
  'person',
  'patient',
  'passenger',
  'employee',
  'owner',
  'contact',
  'holder',
  'member',
  'student',
  'father',
  'mother',
  'spouse',
  'guardian',
  'nominee',
  'applicant',
  'beneficiary',
  'driver',
  'traveller',
  'traveler',
  'buyer',
  'recipient',
  'sender',
  'client',
  'parent',
  'child',
  'candidate',
  'doctor',
  'citizen',
  'legal',
  'maiden',
  'birth',
];
const NAME_WORDS = ['firstname', 'lastname', 'fullname', 'surname', 'givenname', 'fname', 'lname', 'forename', 'middlename', 'familyname'];
const NOT_AN_ADDRESS = ['ip', 'email', 'mail', 'mac', 'url', 'web', 'wallet', 'host', 'server', 'memory', 'base', 'contract', 'hardware', 'bluetooth'];

/**
 * What the field's name says. `path` is the dotted path; its last segment speaks, and for a bare
 * "name" the segment above it too (`passenger.name` is a person's name, `product.name` is not).
 */
export function nameEvidence(path: string): NameEvidence[] {
  const segments = path.split('.');
  const leaf = new Set(nameWords(segments[segments.length - 1]!));
  const parent = new Set(segments.length > 1 ? nameWords(segments[segments.length - 2]!) : []);
  const joined = [...leaf].join('');
  const found: NameEvidence[] = [];
  const add = (type: BuiltinPiiType, strength: number) => found.push({ type, strength });

  if (hasAny(leaf, ['email', 'mail', 'emailid', 'emailaddress']) || joined === 'email') add('email', NAME_ONLY);
  if (hasAny(leaf, ['phone', 'mobile', 'tel', 'telephone', 'cell', 'cellphone', 'msisdn', 'whatsapp', 'fax', 'phoneno', 'mobileno', 'landline'])) add('phone', NAME_ONLY);
  if (hasAny(leaf, ['card', 'cc', 'ccnum', 'cardnumber', 'creditcard', 'debitcard'])) add('credit_card', NAME_ONLY);
  if (leaf.has('iban')) add('iban', NAME_ONLY);
  else if (hasAny(leaf, ['account', 'acct', 'bank'])) add('iban', 0.25);
  if (hasAny(leaf, ['ip', 'ipv4', 'ipv6', 'ipaddress', 'ipaddr']) || (hasAny(leaf, ['remote', 'client', 'source', 'src']) && hasAny(leaf, ['addr', 'address']))) add('ip_address', NAME_ONLY);
  if (hasAny(leaf, ['ssn', 'ssnumber']) || (leaf.has('social') && leaf.has('security'))) add('ssn', NAME_ONLY);
  if (hasAny(leaf, ['aadhaar', 'aadhar', 'adhaar', 'aadhaarnumber', 'uidai'])) add('aadhaar', NAME_ONLY);
  if (hasAny(leaf, ['pan', 'pancard', 'pannumber', 'panno'])) add('pan', NAME_ONLY);
  if (hasAny(leaf, ['passport', 'passportno', 'passportnumber'])) add('passport', NAME_ONLY);
  if (hasAny(leaf, ['dob', 'birth', 'birthday', 'birthdate', 'dateofbirth', 'born'])) add('date_of_birth', 0.85);

  const personal = !hasAny(leaf, NOT_A_PERSON) && !leaf.has('birth');
  if (personal && hasAny(leaf, NAME_WORDS)) add('name', 0.85);
  else if (personal && leaf.has('name')) {
    if (hasAny(leaf, PERSON_QUALIFIERS) || (hasAny(parent, PERSON_QUALIFIERS) && !hasAny(parent, NOT_A_PERSON))) add('name', 0.85);
    else if (leaf.size === 1 && !hasAny(parent, NOT_A_PERSON)) add('name', 0.55);
  }
  if (hasAny(leaf, ['address', 'addr', 'street', 'addressline', 'residence']) && !hasAny(leaf, NOT_AN_ADDRESS) && !found.some((e) => e.type === 'ip_address')) {
    add('address', 0.8);
  }
  return found;
}
