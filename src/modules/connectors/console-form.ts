// The original web console reads a connector's ui_spec as one JSON Schema form of the connector's
// configuration: `title`, `description`, `properties` (each field with its `title`, and its help in
// `helptext` or `description`) and `required`. The contract's ui_spec is another layout (`schema`
// holding connector_config and operations_config, `properties` holding UI hints), so with
// CONNECTOR_UI_SPEC_FORMAT=console reads answer this form instead, made from the same spec.
import { isObject } from '../../validation/json-object.js';
import type { JsonObject } from './types.js';

/** A field with its help text where the console looks for it (from the spec's fieldDescription). */
function withHelp(field: unknown): unknown {
  if (!isObject(field)) return field;
  const described = Array.isArray(field.fieldDescription) && isObject(field.fieldDescription[0]) ? field.fieldDescription[0].description : undefined;
  const { fieldDescription: _omitted, ...rest } = field;
  const properties = isObject(rest.properties) ? Object.fromEntries(Object.entries(rest.properties).map(([name, inner]) => [name, withHelp(inner)])) : undefined;
  return { ...rest, ...(typeof described === 'string' ? { description: described, helptext: described } : {}), ...(properties ? { properties } : {}) };
}

/** The console's form of a contract ui_spec; a spec of another layout is returned unchanged. */
export function consoleForm(uiSpec: unknown): unknown {
  const config = isObject(uiSpec) && isObject(uiSpec.schema) && isObject(uiSpec.schema.properties) ? uiSpec.schema.properties.connector_config : undefined;
  if (!isObject(config)) return uiSpec;
  const form = withHelp(config) as JsonObject;
  return {
    title: form.title,
    description: form.description ?? form.title,
    type: 'object',
    properties: form.properties ?? {},
    required: form.required ?? [],
    ...(form.dependencies ? { dependencies: form.dependencies } : {}),
  };
}
