// The layer rule of eslint.config.mjs (no-restricted-imports, one block per layer) fails on each kind
// of crossing it exists for, as an error (what makes `npm run lint` fail), and passes on the allowed
// imports. Each case plants one import in a file of the layer it concerns and lints it with the
// project's own configuration (only the layer rule runs, without type information, so the cases take
// milliseconds). That the tree as it is passes the rule is `npm run lint`'s to say (CI runs it before
// the tests): linting the whole tree again here took a minute of a loaded run.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAYER_RULE = 'no-restricted-imports';

const eslint = new ESLint({
  cwd: ROOT,
  ruleFilter: ({ ruleId }) => ruleId === LAYER_RULE,
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
});

/**
 * The layer rule's messages for `code` as if it were the file at `file` (relative to the project),
 * each with its severity: an error (2) is what makes `npm run lint` (`eslint --max-warnings 0`) fail.
 */
async function layerProblems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).map((message) => `${message.ruleId ?? 'parse'} (severity ${message.severity}): ${message.message}`);
}

const PLATFORM = /src\/platform does not import modules, transports or the HTTP layer/;
const TELEMETRY = /src\/telemetry does not import modules, transports or the HTTP layer/;
const REST = /src\/ does not import rest\//;
const OTHER_STORE = /A module does not import another module's store/;
const ANY_STORE = /Only a module itself \(and the composition root, src\/server.ts and src\/services.ts, which wire it\) imports a module's store/;
const GRAPHQL_HTTP = /src\/graphql does not import the HTTP layer \(src\/http\)/;
const MODULE_INTERNALS = /Outside a module, import it through its index.ts/;
const OTHER_MODULE_INTERNALS = /A module imports another module through its index.ts/;
const REST_MODULES = /rest\/ does not import src\/modules/;

const FORBIDDEN: [string, string, string, RegExp][] = [
  ['platform runs module code', 'src/platform/event-bus/planted.ts', "import { ingestionProcessing } from '../../modules/ingestion/pipeline.js';", PLATFORM],
  ['platform takes a type from a module', 'src/platform/query-engine/planted.ts', "import type { DatasetRecord } from '../../modules/datasets/types.js';", PLATFORM],
  ['platform re-exports a module', 'src/platform/pii-detector/planted.ts', "export { detectValue } from '../../modules/pii/detectors.js';", PLATFORM],
  ['platform imports the HTTP layer', 'src/platform/notifier/planted.ts', "import { sendFailure } from '../../http/envelope.js';", PLATFORM],
  ['platform imports a GraphQL transport file', 'src/platform/cache/planted.ts', "import { publishedResults } from '../../graphql/published-results.js';", PLATFORM],
  ['platform imports the composition root', 'src/platform/database/planted.ts', "import { startGateway } from '../../server.js';", PLATFORM],
  ['telemetry takes a type from a module', 'src/telemetry/planted.ts', "import type { IngestionCounts } from '../modules/ingestion/counters.js';", TELEMETRY],
  ['telemetry imports the HTTP layer', 'src/telemetry/planted.ts', "import { sendFailure } from '../http/envelope.js';", TELEMETRY],
  ['telemetry imports rest/', 'src/telemetry/planted.ts', "import { REST_PREFIXES } from '../../rest/router.js';", REST],
  ['an HTTP middleware imports rest/', 'src/http/planted.ts', "import { restEndpoints } from '../../rest/endpoints.js';", REST],
  ['a door other than REST imports rest/', 'src/transports/planted.ts', "import { REST_PREFIXES } from '../../rest/router.js';", REST],
  ['auth takes a type from rest/', 'src/auth/planted.ts', "import type { RestEndpoint } from '../../rest/table.js';", REST],
  ['a module imports rest/', 'src/modules/templates/planted.ts', "import { templateEndpoints } from '../../../rest/templates.js';", REST],
  ['platform imports rest/', 'src/platform/event-bus/planted.ts', "import { REST_PREFIXES } from '../../../rest/router.js';", REST],
  ["a module imports another module's store", 'src/modules/templates/planted.ts', "import { createDatasetStore } from '../datasets/index.js';", OTHER_STORE],
  ["a module imports another module's store by a long path", 'src/modules/alerts/planted.ts', "import type { AlertRuleStore } from '../../modules/alert-rules/index.js';", OTHER_STORE],
  ["a GraphQL file imports a module's store", 'src/graphql/planted.ts', "import { createTemplateStore } from '../modules/templates/index.js';", ANY_STORE],
  ["an HTTP middleware imports a module's store", 'src/http/planted.ts', "import { createAuditStore } from '../modules/audit/index.js';", ANY_STORE],
  ['a GraphQL file imports a file of a module', 'src/graphql/planted.ts', "import { datasetList } from '../modules/datasets/list.js';", MODULE_INTERNALS],
  ["a GraphQL file imports a module's store file", 'src/graphql/planted.ts', "import { createTemplateStore } from '../modules/templates/store.js';", MODULE_INTERNALS],
  ['the HTTP layer takes a type from a file of a module', 'src/http/planted.ts', "import type { LiveGate } from '../modules/live/gate.js';", MODULE_INTERNALS],
  ['the shared kernel re-exports a file of a module', 'src/auth/planted.ts', "export { auditTarget } from '../modules/audit/trail.js';", MODULE_INTERNALS],
  ["the composition root imports a module's store file", 'src/server.ts', "import { createDatasetStore } from './modules/datasets/store.js';", MODULE_INTERNALS],
  ['a module imports a file of another module', 'src/modules/templates/planted.ts', "import { datasetIdLengthProblem } from '../datasets/definition.js';", OTHER_MODULE_INTERNALS],
  [
    'a module takes a type from a file of another module by a long path',
    'src/modules/alerts/planted.ts',
    "import type { AlertRuleView } from '../../modules/alert-rules/types.js';",
    OTHER_MODULE_INTERNALS,
  ],
  ["a module imports another module's store file", 'src/modules/templates/planted.ts', "import { createDatasetStore } from '../datasets/store.js';", OTHER_MODULE_INTERNALS],
  ['a test support file imports a file of a module', 'test/support/planted.ts', "import { datasetList } from '../../src/modules/datasets/list.js';", MODULE_INTERNALS],
  ['a test of the GraphQL layer imports a file of a module', 'test/graphql/planted.test.ts', "import { auditCursor } from '../../src/modules/audit/service.js';", MODULE_INTERNALS],
  ['a bench imports a file of a module', 'bench/planted.ts', "import { createPiiService } from '../src/modules/pii/service.js';", MODULE_INTERNALS],
  ["a REST entry imports a module's store file", 'rest/planted.ts', "import { createDatasetStore } from '../src/modules/datasets/store.js';", REST_MODULES],
  ['a REST entry imports a module through its index', 'rest/planted.ts', "import { datasetList } from '../src/modules/datasets/index.js';", REST_MODULES],
  ['a REST entry takes a type from a module', 'rest/planted.ts', "import type { DatasetRecord } from '../src/modules/datasets/index.js';", REST_MODULES],
  ['the GraphQL layer imports the HTTP layer', 'src/graphql/planted.ts', "import { writeKeptAnswer } from '../http/kept-answer.js';", GRAPHQL_HTTP],
  ['the GraphQL layer takes a type from the HTTP layer', 'src/graphql/planted.ts', "import type { KeptReads } from '../http/kept-reads.js';", GRAPHQL_HTTP],
];

const ALLOWED: [string, string, string][] = [
  ['the services of the composition root make the stores', 'src/services.ts', "import { createDatasetStore } from './modules/datasets/index.js';"],
  ['the composition root wires rest/ and stores', 'src/server.ts', "import { restEndpoints } from '../rest/endpoints.js';\nimport { createDatasetStore } from './modules/datasets/index.js';"],
  [
    'a module imports another module through its index',
    'src/modules/templates/planted.ts',
    "import { datasetIdLengthProblem, type DatasetService } from '../datasets/index.js';\nimport type { AlertRuleView } from '../../modules/alert-rules/index.js';",
  ],
  ['a GraphQL file imports a module through its index', 'src/graphql/planted.ts', "import { datasetList, type DatasetRecord } from '../modules/datasets/index.js';"],
  ['a test imports a module, its store included, through its index', 'test/platform/planted.test.ts', "import { createIngestionCounterStore } from '../../src/modules/ingestion/index.js';"],
  ['a unit test of a module imports the file it tests', 'test/modules/planted.test.ts', "import { luhnValid } from '../../src/modules/pii/checksums.js';"],
  ['a REST entry imports the GraphQL layer', 'rest/planted.ts', "import { classifyGraphQLError } from '../src/graphql/errors.js';"],
  [
    'a module imports its own store and a port',
    'src/modules/datasets/planted.ts',
    "import { createDatasetStore } from './store.js';\nimport type { EventBus } from '../../platform/event-bus/event-bus.js';",
  ],
  [
    'a platform adapter imports another port and the shared kernel',
    'src/platform/alert-manager/planted.ts',
    "import type { ChannelTarget } from '../notifier/channel.js';\nimport { GatewayError } from '../../errors.js';",
  ],
  ['telemetry imports a port', 'src/telemetry/planted.ts', "import type { EventBus } from '../platform/event-bus/event-bus.js';"],
  ['a module imports the observer type telemetry declares', 'src/modules/ingestion/planted.ts', "import type { IngestionObserver } from '../../telemetry/metrics.js';"],
  ['a platform adapter imports the metrics store (a platform file named store)', 'src/platform/promql/planted.ts', "import { MetricsStore } from '../metrics-store/store.js';"],
  ['rest/ imports the envelope from src/http', 'rest/planted.ts', "import { sendFailure } from '../src/http/envelope.js';"],
  ['the GraphQL layer imports what it keeps from the platform', 'src/graphql/planted.ts', "import { prepareBody, type PreparedAnswer } from '../platform/cache/prepared-answer.js';"],
  ['the HTTP layer imports the GraphQL layer', 'src/http/planted.ts', "import { isJsonRequest } from '../graphql/published-results.js';"],
  ['the REST door imports the REST table', 'src/transports/rest.ts', "import { restEndpoints } from '../../rest/endpoints.js';"],
];

describe('the layer rule (eslint.config.mjs)', () => {
  it.each(FORBIDDEN)('fails when %s', async (_case, file, code, message) => {
    const problems = await layerProblems(file, code);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${LAYER_RULE} \\(severity 2\\): .*${message.source}`));
  });

  it.each(ALLOWED)('passes when %s', async (_case, file, code) => {
    expect(await layerProblems(file, code)).toEqual([]);
  });
});
