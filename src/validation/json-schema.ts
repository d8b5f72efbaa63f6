// JSON Schema 2020-12 validators compiled once, with messages in the contract's style:
// "#properties/request/required must have required property 'x'". Used at the REST edge and by
// services that validate free-form documents (a dataset definition) for both transports.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export type JsonSchema = Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: false, strict: true, allowUnionTypes: true });
(addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);

export interface Validator {
  /** Undefined when the value is valid, else a message naming the failing path. */
  (value: unknown): string | undefined;
}

export function compileValidator(schema: JsonSchema): Validator {
  const validate: ValidateFunction = ajv.compile(schema);
  return (value) => (validate(value) ? undefined : describeError(validate.errors?.[0]));
}

function describeError(error: ErrorObject | undefined): string {
  if (!error) return 'the request is invalid';
  // "#/properties/request/required" -> "#properties/request/required", as the original prints it.
  const where = error.schemaPath.replace(/^#\//, '#');
  let detail = '';
  if (error.keyword === 'additionalProperties') detail = `: '${String(error.params.additionalProperty)}'`;
  else if (error.keyword === 'enum') detail = ` (${(error.params.allowedValues as unknown[]).map(String).join(', ')})`;
  else if (error.keyword === 'const') detail = ` (${JSON.stringify(error.params.allowedValue)})`;
  const at = error.instancePath && !['required', 'additionalProperties'].includes(error.keyword) ? ` at ${error.instancePath}` : '';
  return `${where} ${error.message ?? 'is invalid'}${detail}${at}`;
}
