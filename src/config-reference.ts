// The configuration reference (docs/configuration.md), generated from
// `environmentSchema`: names, accepted values, defaults and descriptions come from the schema
// itself, so the documentation cannot drift from what the gateway accepts.
import { environmentSchema } from './config.js';
import { acceptedValues, describeVariables } from './config/problems.js';

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

export function configVariables(): ConfigVariable[] {
  return [...describeVariables(environmentSchema)].map(([name, { node, defaultValue, description }]) => ({
    name,
    accepts: acceptedValues(node),
    defaultValue,
    description,
    secret: node.secret === true,
  }));
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
