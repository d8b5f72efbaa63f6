// The configuration reference (docs/configuration.md and the README's table), generated from
// `environmentSchema`: names, accepted values, defaults and descriptions come from the schema
// itself, so the documentation cannot drift from what the gateway accepts.
import { z } from 'zod';
import { environmentSchema } from './config.js';

export interface ConfigVariable {
  name: string;
  /** Accepted values in words, e.g. "integer 1–500", "one of: info, debug". */
  accepts: string;
  /** The default as a person would write it, or undefined when the variable is unset by default. */
  defaultValue?: string;
  description: string;
  /** A secret: may be given as `<name>_FILE`, a file holding it, instead. */
  secret: boolean;
}

type JsonSchemaNode = { type?: string; enum?: unknown[]; minimum?: number; maximum?: number; pattern?: string; format?: string; minLength?: number; secret?: boolean };

const SIZE_PATTERN = '^\\d+(b|kb|mb)$';

function formatSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)}mb`;
  if (bytes % 1024 === 0) return `${bytes / 1024}kb`;
  return `${bytes}b`;
}

function accepts(node: JsonSchemaNode): string {
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

export function configVariables(): ConfigVariable[] {
  const json = z.toJSONSchema(environmentSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonSchemaNode> };
  const shape = environmentSchema.shape as Record<string, z.ZodType>;
  return Object.entries(shape).map(([name, field]) => {
    const node = json.properties[name] ?? {};
    const def = (field as unknown as { _zod: { def: { type: string; defaultValue?: unknown } } })._zod.def;
    let defaultValue: string | undefined;
    if (def.type === 'default') {
      const value = def.defaultValue;
      defaultValue = node.pattern === SIZE_PATTERN && typeof value === 'number' ? formatSize(value) : String(value);
    }
    return { name, accepts: accepts(node), defaultValue, description: field.description ?? '', secret: node.secret === true };
  });
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** The Markdown table: variable, default, accepted values, meaning. */
export function configurationTable(variables = configVariables()): string {
  const rows = variables.map(
    (variable) =>
      `| \`${variable.name}\` | ${variable.defaultValue === undefined ? 'unset' : `\`${cell(variable.defaultValue)}\``} | ${cell(variable.accepts)} | ${cell(variable.description)}${variable.secret ? ` Secret: or \`${variable.name}_FILE\`, a file holding it.` : ''} |`,
  );
  return ['| Variable | Default | Accepts | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

export function configurationReference(): string {
  return `<!-- Generated from environmentSchema in src/config.ts by \`npm run generate:docs\`; do not edit. -->
# Configuration reference

The gateway reads these environment variables once, at start-up. Empty values count as unset. Every
bad value is reported at once (all of them, not the first) and the gateway exits with status 1.
Nothing else in the code reads \`process.env\`.

A variable marked *Secret* may instead be given as \`<NAME>_FILE\`, the path of a file holding the
value (how Docker Compose, Swarm and Kubernetes mount secrets, e.g. \`JWT_SECRET_FILE=/run/secrets/jwt-secret\`).
One trailing line break is dropped. Setting both \`<NAME>\` and \`<NAME>_FILE\`, or naming a file that
cannot be read or is empty, is a configuration error.

${configurationTable()}

Credentials for S3 come from the standard AWS chain (\`AWS_ACCESS_KEY_ID\`, \`AWS_SECRET_ACCESS_KEY\`,
a profile or an instance role), not from variables of the gateway's own. Their file form is the
SDK's own: \`AWS_SHARED_CREDENTIALS_FILE\` names a credentials file (\`[default]\` with
\`aws_access_key_id\` and \`aws_secret_access_key\`), which may be a mounted secret.
`;
}
