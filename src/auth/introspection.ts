// Introspection (when GRAPHQL_INTROSPECTION allows it at all) needs a caller: with AUTH_MODE jwt or
// session an anonymous client cannot map the schema. `__schema`/`__type` have no resolver of ours
// for the root-field guard to wrap, so this check sits before execution, over GraphQL only (REST
// never asks for them).
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, type DocumentNode, type SelectionSetNode } from 'graphql';
import { GatewayError } from '../errors.js';
import { NO_CREDENTIALS_MESSAGE, type RequestAccess } from './access.js';

const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

function asksIntrospection(selectionSet: SelectionSetNode, document: DocumentNode, seen = new Set<string>()): boolean {
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return INTROSPECTION_FIELDS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return asksIntrospection(selection.selectionSet, document, seen);
    if (seen.has(selection.name.value)) return false;
    seen.add(selection.name.value);
    const fragment = document.definitions.find((definition) => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value);
    return fragment?.kind === Kind.FRAGMENT_DEFINITION && asksIntrospection(fragment.selectionSet, document, seen);
  });
}

export function introspectionNeedsCaller<TContext extends { access: RequestAccess }>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, contextValue }) {
          if (!operation || !asksIntrospection(operation.selectionSet, document)) return;
          const { caller, failure } = contextValue.access.authentication;
          if (caller) return;
          const error = failure ?? new GatewayError('UNAUTHENTICATED', NO_CREDENTIALS_MESSAGE);
          throw new GraphQLError(error.message, { originalError: error, extensions: { http: { status: error.httpStatus } } });
        },
      };
    },
  };
}
