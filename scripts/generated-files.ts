// The committed files generated from the code, and the check that they are current:
//
//   graphql/lists.graphql   the list contract's inputs, from the lists' declarations (src/graphql/lists.ts)
//   openapi.json            the REST layer's OpenAPI 3.1 document, from the REST table (rest/openapi.ts)
//   schema.graphql          the GraphQL schema printed from graphql/*.graphql (graphql's printSchema)
//   docs/introspection.json the answer to GraphQL's introspection query (what GraphiQL and code generators read)
//   persisted-operations.json  the allow list of GraphQL operations, from graphql/operations/*.graphql
//   docs/configuration.md   the configuration reference, from environmentSchema (src/config-reference.ts)
//   docs/rest.md            its REST table, between its markers
//   docs/architecture.md    its operation pipeline table, between its markers
//
// Usage: node --import tsx scripts/generated-files.ts           writes them (npm run generate:docs)
//        node --import tsx scripts/generated-files.ts --check   exits 1 when one differs (npm run check:generated)
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getIntrospectionQuery, graphqlSync, printSchema } from 'graphql';
import { restEndpoints } from '../rest/endpoints.js';
import { buildOpenApiDocument } from '../rest/openapi.js';
import { restReadmeTable } from '../rest/readme-table.js';

// The committed openapi.json dates its examples from a fixed day, so it changes only with the code;
// the gateway's own /openapi.json dates them from its start.
const COMMITTED_EXAMPLES_AT = new Date('2026-01-01T00:00:00Z');
import { loadConfig } from '../src/config.js';
import { configurationReference } from '../src/config-reference.js';
import { aliasLimitRule, depthLimitRule } from '../src/graphql/limits.js';
import { buildManifest } from '../src/graphql/persisted-operations.js';
import { LIST_SDL_FILE, listSdlText } from '../src/graphql/lists.js';
import { buildSchema } from '../src/graphql/schema.js';
import { pipelineReadmeTable } from '../src/graphql/pipeline/policies.js';
import { GATEWAY_VERSION } from '../src/version.js';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const REST_MARKERS = ['<!-- rest-table:start (generated from rest/*.ts by `npm run generate:docs`) -->', '<!-- rest-table:end -->'] as const;
export const PIPELINE_MARKERS = ['<!-- pipeline-table:start (generated from src/graphql/pipeline/policies.ts by `npm run generate:docs`) -->', '<!-- pipeline-table:end -->'] as const;

/** `text` with what lies between `markers` replaced by `content`; undefined when a marker is missing. */
function between(text: string, markers: readonly [string, string], content: string): string | undefined {
  const start = text.indexOf(markers[0]);
  const end = text.indexOf(markers[1]);
  if (start < 0 || end < start) return undefined;
  return `${text.slice(0, start + markers[0].length)}\n${content}\n${text.slice(end)}`;
}

export interface GeneratedFile {
  /** Relative to the repository root. */
  path: string;
  content: string;
}

export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(restEndpoints, { version: GATEWAY_VERSION, examplesAt: COMMITTED_EXAMPLES_AT }), null, 2)}\n`;
}

export function graphqlSchemaText(): string {
  return `# Generated from graphql/*.graphql by \`npm run generate:docs\`; do not edit.\n\n${printSchema(buildSchema(GATEWAY_VERSION))}\n`;
}

/** The options of the introspection query the snapshot answers: everything graphql 16 tells but its experiments. */
export const INTROSPECTION_OPTIONS = { descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true } as const;

/**
 * The introspection result, committed so that a change to what clients see (a type, a description,
 * a deprecation, an argument's default) shows in the diff as they will see it.
 */
export function introspectionText(): string {
  const { data, errors } = graphqlSync({ schema: buildSchema(GATEWAY_VERSION), source: getIntrospectionQuery(INTROSPECTION_OPTIONS) });
  if (errors) throw new Error(`introspection failed: ${errors.map((error) => error.message).join('; ')}`);
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** Held to the default depth and alias limits, so a listed operation never fails them at run time. */
export function persistedOperationsText(): string {
  const { maxDepth, maxAliases } = loadConfig({}).graphqlLimits;
  const manifest = buildManifest(buildSchema(GATEWAY_VERSION), undefined, [depthLimitRule(maxDepth), aliasLimitRule(maxAliases)]);
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The documentation pages that hold a generated table between markers, each with what goes there. */
const MARKED_TABLES = [
  { path: 'docs/rest.md', markers: REST_MARKERS, table: () => restReadmeTable(restEndpoints) },
  { path: 'docs/architecture.md', markers: PIPELINE_MARKERS, table: pipelineReadmeTable },
] as const;

/** Each page of MARKED_TABLES with its table replaced; a page that is missing or has lost a marker is left out, which test/generated-files.test.ts reports. */
function markedPages(): GeneratedFile[] {
  return MARKED_TABLES.flatMap(({ path: page, markers, table }) => {
    const file = path.join(ROOT, page);
    const content = existsSync(file) ? between(readFileSync(file, 'utf8'), markers, table()) : undefined;
    return content === undefined ? [] : [{ path: page, content }];
  });
}

export function generatedFiles(): GeneratedFile[] {
  return [
    { path: LIST_SDL_FILE, content: listSdlText() },
    { path: 'openapi.json', content: openApiText() },
    { path: 'schema.graphql', content: graphqlSchemaText() },
    { path: 'docs/introspection.json', content: introspectionText() },
    { path: 'persisted-operations.json', content: persistedOperationsText() },
    { path: 'docs/configuration.md', content: configurationReference() },
    ...markedPages(),
  ];
}

/** The generated files whose committed copy differs from what the code generates now. */
export function staleFiles(files = generatedFiles()): string[] {
  return files
    .filter((file) => {
      const target = path.join(ROOT, file.path);
      return !existsSync(target) || readFileSync(target, 'utf8') !== file.content;
    })
    .map((file) => file.path);
}

function main(): void {
  const check = process.argv.includes('--check');
  // The schema is built from graphql/*.graphql, lists.graphql included, whose connections' groupBy and
  // aggregate the resolvers serve: that file is written first, so that the schema is built from it.
  if (!check) writeFileSync(path.join(ROOT, LIST_SDL_FILE), listSdlText());
  const files = generatedFiles();
  if (check) {
    const stale = staleFiles(files);
    if (stale.length > 0) {
      console.error(`generated files are out of date: ${stale.join(', ')}\nrun \`npm run generate:docs\` and commit the result`);
      process.exit(1);
    }
    console.log(`generated files are current: ${files.map((file) => file.path).join(', ')}`);
    return;
  }
  for (const file of files) {
    const target = path.join(ROOT, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    const before = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    if (before !== file.content) writeFileSync(target, file.content);
    console.log(`${before === file.content ? 'unchanged' : 'wrote'} ${file.path}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
