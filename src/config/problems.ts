// What a variable accepts, in words, and an example of a good value, read from the variables'
// schema itself: the configuration reference (src/config-reference.ts) shows them, and a refused
// setting is reported with them, so that an operator reads 'PORT: expected integer 0–65535, got
// "eighty"; e.g. PORT=3000' rather than a validator's "expected number, received NaN".
import { z } from 'zod';
import { sizeText } from './values.js';

export type JsonSchemaNode = { type?: string; enum?: unknown[]; minimum?: number; maximum?: number; pattern?: string; format?: string; minLength?: number; secret?: boolean };

export const SIZE_PATTERN = '^\\d+(b|kb|mb)$';

/** Accepted values in words, e.g. "integer 1–500", "one of `info`, `debug`". */
export function acceptedValues(node: JsonSchemaNode): string {
  if (node.enum) {
    const values = node.enum.map(String);
    if (['true', 'false', '1', '0', 'yes', 'no'].every((value) => values.includes(value))) return 'boolean (true/false, 1/0, yes/no)';
    return `one of ${values.map((value) => `\`${value}\``).join(', ')}`;
  }
  if (node.type === 'integer' || node.type === 'number') {
    // A fraction is allowed unless the schema says integer (PII_MIN_SCORE takes 0.5).
    const kind = node.type === 'integer' ? 'integer' : 'number';
    const bounded = node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER;
    if (node.minimum !== undefined && bounded) return `${kind} ${node.minimum}–${node.maximum}`;
    if (node.minimum !== undefined) return `${kind} ≥ ${node.minimum}`;
    return kind;
  }
  if (node.pattern === SIZE_PATTERN) return 'size (`512kb`, `10mb`, bytes with `b`)';
  if (node.format === 'uri') return 'URL';
  if (node.pattern?.startsWith('^postgres')) return '`postgresql://` URL';
  if (node.pattern?.startsWith('^smtp')) return '`smtp://` or `smtps://` URL';
  if (node.minLength && node.minLength > 1) return `text, at least ${node.minLength} characters`;
  return 'text';
}

/** Examples for variables whose kind alone does not suggest one (a shape of their own, or a service's address). */
const EXAMPLES: Record<string, string> = {
  KAFKA_BROKERS: 'kafka-1:9092,kafka-2:9092',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://otel-collector:4318/v1/traces',
  S3_BUCKET: 'gateway-files',
  CONNECTOR_CONFIG_KEY: '$(openssl rand -hex 32)',
  PERSISTED_OPERATIONS_REQUIRED_FOR: 'role:viewer,caller:apikey:grafana',
  PERSISTED_OPERATIONS_FILE: '/etc/gateway/persisted-operations.json',
  PERMISSIONS_FILE: '/etc/gateway/permissions.json',
  JWT_PUBLIC_KEY_FILE: '/etc/gateway/jwt-public.pem',
  JWT_JWKS_FILE: '/etc/gateway/jwks.json',
  JWT_ISSUER: 'https://auth.example.com/realms/platform',
  JWT_AUDIENCE: 'data-platform',
  SESSION_USER_PATH: 'passport.user',
  SESSION_ROLES_PATH: 'passport.user.roles',
  CORS_ALLOWED_ORIGINS: 'https://console.example.com',
  OBJECT_STORE_CORS_ORIGINS: 'https://console.example.com',
  SESSION_TRUSTED_ORIGINS: 'https://console.example.com',
  ALERT_MANAGER_ALIASES: 'grafana=alertmanager',
  PUBLIC_URL: 'https://gateway.example.com',
  DRUID_URL: 'http://druid-router:8888',
  ALERTMANAGER_URL: 'http://alertmanager:9093',
  GRAFANA_URL: 'http://grafana:3000',
  PII_SERVICE_URL: 'http://presidio-analyzer:3000',
  PROMETHEUS_URL: 'http://prometheus:9090',
  S3_ENDPOINT: 'http://minio:9000',
  S3_PUBLIC_ENDPOINT: 'http://localhost:9000',
  VERSION_RETENTION: '200',
};

/** A good value for a variable, as a person would write it. */
export function exampleValue(name: string, node: JsonSchemaNode, defaultValue: string | undefined): string {
  const known = EXAMPLES[name];
  if (known !== undefined) return known;
  // A default of '' (an empty list) shows nothing; any other default is a good value by definition.
  if (defaultValue !== undefined && defaultValue !== '') return defaultValue;
  if (node.enum) return node.enum.map(String).includes('true') ? 'true' : String(node.enum[0]);
  if (node.type === 'integer' || node.type === 'number') return String(node.minimum !== undefined && node.minimum > 0 ? node.minimum : 1);
  if (node.pattern === SIZE_PATTERN) return '1mb';
  if (node.pattern?.startsWith('^postgres')) return 'postgresql://gateway:secret@db.example:5432/gateway';
  if (node.pattern?.startsWith('^smtp')) return 'smtp://user:secret@mail.example:587';
  if (node.format === 'uri') return 'https://service.example';
  // A secret: a random one, made by the shell.
  if (node.minLength && node.minLength > 1) return `$(openssl rand -hex ${Math.max(16, Math.ceil(node.minLength / 2))})`;
  return 'value';
}

/** Variables whose value is a secret: a refusal says how long it was, never what it was. */
const SECRET = /SECRET|TOKEN|PASSWORD|_KEY$/;

/** The given value as a refusal may quote it: secrets and a URL's password left out, long values cut. */
function shownValue(name: string, given: string): string {
  if (SECRET.test(name)) return `${given.length} characters (not shown)`;
  let shown = given;
  try {
    const url = new URL(given);
    if (url.password) {
      url.password = '***';
      shown = url.toString();
    }
  } catch {
    // Not a URL: shown as given.
  }
  return JSON.stringify(shown.length > 200 ? `${shown.slice(0, 200)}…` : shown);
}

// zod's own messages ("Invalid input: expected number, received NaN", "Too small: ...") say what a
// validator saw; a variable's own message ("must be ...") says what to write, and is kept.
const VALIDATOR_MESSAGE = /^(Invalid|Too (small|big)|Expected)/;

/** The schema's nodes and defaults, by variable, read once and only when needed (a refusal or the docs). */
export function describeVariables(schema: z.ZodObject): Map<string, { node: JsonSchemaNode; defaultValue?: string; description: string }> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonSchemaNode> };
  const shape = schema.shape as Record<string, z.ZodType>;
  return new Map(
    Object.entries(shape).map(([name, field]) => {
      const node = json.properties[name] ?? {};
      const def = (field as unknown as { _zod: { def: { type: string; defaultValue?: unknown } } })._zod.def;
      let defaultValue: string | undefined;
      if (def.type === 'default') {
        const value = def.defaultValue;
        defaultValue = node.pattern === SIZE_PATTERN && typeof value === 'number' ? sizeText(value) : String(value);
      }
      return [name, { node, ...(defaultValue === undefined ? {} : { defaultValue }), description: field.description ?? '' }];
    }),
  );
}

/**
 * One line per refused variable: its name, the value given, what it accepts and an example, e.g.
 * `PORT: expected integer 0–65535, got "eighty"; e.g. PORT=3000`.
 */
export function settingProblems(schema: z.ZodObject, given: Record<string, string | undefined>, issues: readonly z.core.$ZodIssue[]): string[] {
  const variables = describeVariables(schema);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const name = String(issue.path[0] ?? '');
    const variable = variables.get(name);
    if (!variable) {
      problems.push(issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message);
      continue;
    }
    // One line per variable, even when several of its checks failed.
    if (seen.has(name)) continue;
    seen.add(name);
    const what = VALIDATOR_MESSAGE.test(issue.message) ? `expected ${acceptedValues(variable.node)}` : issue.message;
    problems.push(`${name}: ${what}, got ${shownValue(name, given[name] ?? '')}; e.g. ${name}=${exampleValue(name, variable.node, variable.defaultValue)}`);
  }
  return problems;
}
