// The original web console reads a connector's ui_spec as one JSON Schema form of the connector's
// configuration: `title`, `description`, `properties` (each field with its `title`, and its help in
// `helptext` or `description`) and `required`. The contract's ui_spec is another layout (`schema`
// holding connector_config and operations_config, `properties` holding UI hints), so with
// CONNECTOR_UI_SPEC_FORMAT=console reads answer this form instead, made from the same spec.
//
// What the console does with the form (its ConnectorConfiguration page) shapes this one: it renders
// each top-level property as a form of its own, ordered by `uiIndex`, so top-level `dependencies`
// never take effect; the fields a dependency adds are listed as optional properties (saying when
// they apply), and a field that differs per choice becomes a `oneOf` of its variants, which its
// form library offers as a choice. It shows a password input only for `format: "password"` (or
// hides `format: "hidden"`): the contract's `ui:widget` hints are turned into those. Its help panel
// prints each field's `helptext || description`, so every field gets one.
import { isObject } from '../../validation/json-object.js';
import type { JsonObject } from './types.js';

/** A field with its help text where the console looks for it (from the spec's fieldDescription, else its title). */
function withHelp(field: unknown, hints: JsonObject = {}): unknown {
  if (!isObject(field)) return field;
  const described = Array.isArray(field.fieldDescription) && isObject(field.fieldDescription[0]) ? field.fieldDescription[0].description : undefined;
  const { fieldDescription: _omitted, ...rest } = field;
  const properties = isObject(rest.properties) ? Object.fromEntries(Object.entries(rest.properties).map(([name, inner]) => [name, withHelp(inner, hintsOf(hints, name))])) : undefined;
  const help = typeof described === 'string' ? described : typeof rest.description === 'string' ? rest.description : typeof rest.title === 'string' ? rest.title : undefined;
  const widget = hints['ui:widget'];
  const format = rest.type === 'string' && (widget === 'password' || widget === 'hidden') ? { format: widget } : {};
  return { ...rest, ...format, ...(help !== undefined ? { description: help, helptext: help } : {}), ...(properties ? { properties } : {}) };
}

function hintsOf(hints: JsonObject, name: string): JsonObject {
  const inner = hints[name];
  return isObject(inner) ? inner : {};
}

/** Which values of the controlling field a dependency branch is for, as text ("s3", "sasl_plain or sasl_scram"). */
function branchValues(branch: JsonObject, key: string): string {
  const own = isObject(branch.properties) ? branch.properties[key] : undefined;
  const values = isObject(own) && Array.isArray(own.enum) ? own.enum.map(String) : [];
  return values.join(' or ');
}

/**
 * The fields `dependencies: {key: {oneOf: [...]}}` adds, as top-level properties: one a single
 * branch adds is optional, with its help saying when it applies; one several branches add in
 * different shapes is a `oneOf` of them, each titled by its branch's values.
 */
function dependentFields(form: JsonObject, hints: JsonObject): Record<string, unknown> {
  if (!isObject(form.dependencies)) return {};
  const added = new Map<string, { when: string; field: JsonObject }[]>();
  for (const [key, dependency] of Object.entries(form.dependencies)) {
    if (!isObject(dependency) || !Array.isArray(dependency.oneOf)) continue;
    for (const branch of dependency.oneOf) {
      if (!isObject(branch) || !isObject(branch.properties)) continue;
      const when = `${key} is ${branchValues(branch, key)}`;
      for (const [name, field] of Object.entries(branch.properties)) {
        if (name === key || !isObject(field)) continue;
        added.set(name, [...(added.get(name) ?? []), { when, field: withHelp(field, hintsOf(hints, name)) as JsonObject }]);
      }
    }
  }
  const text = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);
  const fields: Record<string, unknown> = {};
  for (const [name, variants] of added) {
    const [first] = variants;
    if (variants.length === 1) {
      const help = `${text(first!.field.description, text(first!.field.title, name))} (when ${first!.when})`;
      fields[name] = { ...first!.field, description: help, helptext: help };
      continue;
    }
    const title = text(first!.field.title, name);
    const help = `${title}: ${variants.map((variant) => variant.when).join('; ')}`;
    fields[name] = { title, description: help, helptext: help, oneOf: variants.map((variant) => ({ ...variant.field, title: variant.when })) };
  }
  return fields;
}

/** The console's form of a contract ui_spec; a spec of another layout (an archive's own form) is returned unchanged. */
export function consoleForm(uiSpec: unknown): unknown {
  const config = isObject(uiSpec) && isObject(uiSpec.schema) && isObject(uiSpec.schema.properties) ? uiSpec.schema.properties.connector_config : undefined;
  if (!isObject(config)) return uiSpec;
  const hints = isObject(uiSpec) && isObject(uiSpec.properties) && isObject(uiSpec.properties.connector_config) ? uiSpec.properties.connector_config : {};
  const form = withHelp(config, hints) as JsonObject;
  const own = isObject(form.properties) ? form.properties : {};
  const extra = dependentFields(config, hints);
  const fields = { ...own, ...Object.fromEntries(Object.entries(extra).filter(([name]) => !(name in own))) };
  return {
    title: form.title,
    description: form.description ?? form.title,
    type: 'object',
    properties: Object.fromEntries(Object.entries(fields).map(([name, field], index) => [name, isObject(field) ? { ...field, uiIndex: index } : field])),
    required: form.required ?? [],
  };
}
