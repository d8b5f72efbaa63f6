// Introspection (when GRAPHQL_INTROSPECTION allows it at all) needs a caller: with AUTH_MODE jwt or
// session an anonymous client cannot map the schema. `__schema`/`__type` have no resolver of ours
// for the root-field guard to wrap, so the pipeline's checks (src/graphql/pipeline/operation-checks.ts)
// refuse it before execution.
import { Kind, type DocumentNode, type SelectionSetNode } from 'graphql';

const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

/** Whether a selection asks for `__schema` or `__type` (through fragments too). */
export function asksIntrospection(selectionSet: SelectionSetNode, document: DocumentNode, seen = new Set<string>()): boolean {
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return INTROSPECTION_FIELDS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return asksIntrospection(selection.selectionSet, document, seen);
    if (seen.has(selection.name.value)) return false;
    seen.add(selection.name.value);
    const fragment = document.definitions.find((definition) => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value);
    return fragment?.kind === Kind.FRAGMENT_DEFINITION && asksIntrospection(fragment.selectionSet, document, seen);
  });
}
