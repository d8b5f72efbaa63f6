// JSON Schema 2020-12 validators compiled once, on first use, with messages in the contract's style:
// "#properties/request/required must have required property 'x'". Used at the REST edge and by
// services that validate free-form documents (a dataset definition) for both transports.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { field, messageText, type MessagePart } from '../errors.js';

export type JsonSchema = Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: false, strict: true, allowUnionTypes: true });
(addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);

export interface Validator {
  /** Undefined when the value is valid, else a message naming the failing path. */
  (value: unknown): string | undefined;
}

/**
 * Compiles on first use: a schema costs ajv 5-20 ms, and a gateway declares ~150 of them (REST
 * entries, documents), most of which one process never meets; compiling them all at start was a
 * third of a start-up. test/rest/openapi.test.ts compiles every REST entry's schemas.
 */
function compiledOnFirstUse(schema: JsonSchema): () => ValidateFunction {
  let compiled: ValidateFunction | undefined;
  return () => (compiled ??= ajv.compile(schema));
}

export function compileValidator(schema: JsonSchema): Validator {
  const compiled = compiledOnFirstUse(schema);
  return (value) => {
    const validate = compiled();
    return validate(value) ? undefined : describeError(validate.errors?.[0]);
  };
}

/**
 * A validator whose message keeps the document's top-level property names as fields (MessagePart),
 * for a service validating its own input type: each transport then names them as its callers do.
 */
export function compileFieldValidator(schema: JsonSchema): (value: unknown) => MessagePart[] | undefined {
  const compiled = compiledOnFirstUse(schema);
  return (value) => {
    const validate = compiled();
    return validate(value) ? undefined : describeErrorParts(validate.errors?.[0], true);
  };
}

function describeError(error: ErrorObject | undefined): string {
  return messageText(describeErrorParts(error, false));
}

/** The top-level property a schema path is about, past the root's own conditions ("then/", "anyOf/1/"). */
const TOP_LEVEL_PROPERTY = /^((?:(?:if|then|else)\/|(?:allOf|anyOf|oneOf)\/\d+\/)*properties\/)([^/]+)(.*)$/;

/** A schema path or instance path with its top-level property name as a field. */
function pathParts(prefix: string, path: string, kind: 'schema' | 'instance', withFields: boolean): MessagePart[] {
  const found = withFields ? (kind === 'schema' ? TOP_LEVEL_PROPERTY.exec(path) : /^(\/)([^/]+)(.*)$/.exec(path)) : null;
  if (!found) return [prefix + path];
  return [prefix + found[1], field(found[2]!), found[3]!].filter((part) => part !== '');
}

function describeErrorParts(error: ErrorObject | undefined, withFields: boolean): MessagePart[] {
  if (!error) return ['the request is invalid'];
  const atRoot = error.instancePath === '';
  // "#/properties/request/required" -> "#properties/request/required", as the original prints it.
  const where = pathParts('#', error.schemaPath.replace(/^#\//, ''), 'schema', withFields);
  const parts: MessagePart[] = [...where, ' '];
  if (error.keyword === 'required' && atRoot && withFields) {
    parts.push("must have required property '", field(String(error.params.missingProperty)), "'");
  } else {
    parts.push(error.message ?? 'is invalid');
  }
  if (error.keyword === 'additionalProperties') {
    const name = String(error.params.additionalProperty);
    parts.push(": '", atRoot && withFields ? field(name) : name, "'");
  } else if (error.keyword === 'enum') parts.push(` (${(error.params.allowedValues as unknown[]).map(String).join(', ')})`);
  else if (error.keyword === 'const') parts.push(` (${JSON.stringify(error.params.allowedValue)})`);
  if (error.instancePath && !['required', 'additionalProperties'].includes(error.keyword)) parts.push(...pathParts(' at ', error.instancePath, 'instance', withFields));
  return parts.filter((part) => part !== '');
}
