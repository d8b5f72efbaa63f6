// The table of REST endpoints in docs/rest.md, generated from the REST table itself (npm run
// generate:docs), so a new entry shows there and a changed path cannot go stale: method and path
// (second names and query parameters included), API id, the GraphQL root fields its operation
// runs (with their arguments), and its summary.
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { openApiPath } from './openapi.js';
import { operationTexts, type RestEndpoint } from './table.js';

/** `dataset(id, status)` for each root field an entry's operation(s) select. */
function graphqlFields(endpoint: RestEndpoint): string[] {
  return operationTexts(endpoint).flatMap((text) =>
    parse(text)
      .definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)
      .flatMap((operation) =>
        operation.selectionSet.selections.flatMap((selection) =>
          selection.kind === Kind.FIELD ? [`\`${selection.name.value}(${(selection.arguments ?? []).map((argument) => argument.name.value).join(', ')})\``] : [],
        ),
      ),
  );
}

function pathCell(endpoint: RestEndpoint): string {
  const query = Object.keys(endpoint.querySchema?.properties ?? {});
  const suffix = query.length > 0 ? `?${query.map((name) => `${name}=`).join('&')}` : '';
  const paths = [endpoint.path, ...(endpoint.aliases ?? [])].map((path) => `\`${endpoint.method} ${openApiPath(path)}${suffix}\``);
  return paths.join(', also ');
}

export function restReadmeTable(endpoints: readonly RestEndpoint[]): string {
  const rows = endpoints.map((endpoint) => `| ${pathCell(endpoint)} | \`${endpoint.apiId}\` | ${[...new Set(graphqlFields(endpoint))].join(', ')} | ${endpoint.summary} |`);
  return ['| Method and path | API id | GraphQL | What it does |', '|---|---|---|---|', ...rows].join('\n');
}
