// Lint: ESLint's and typescript-eslint's recommended rules, type-checked (they see the types, so
// they catch `[object Object]` in strings, floating promises, awaits of non-promises and values
// of type any flowing into typed code). Generated and built code is skipped.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layers (README "Layout"): rest/ and src/graphql are transports over src/modules; a module reaches
// outside systems through the ports of src/platform, which know no module, transport or HTTP
// layer (what a port needs from a module, src/server.ts hands it); nor does src/telemetry, the
// gateway's own metrics, which modules feed. The GraphQL layer (src/graphql) does not import the HTTP
// layer (src/http), which sits on top of it; rest/ does not import src/modules at all (a REST entry
// runs a GraphQL operation). A module is imported only through its index.ts, from anywhere outside it
// (another module, src/, src/server.ts, tests, benches and scripts; only test/modules, the unit tests
// of a module's files, import those files); inside a module, files import each other directly.
// Only the composition root (src/server.ts, and src/services.ts for the services), which wires them together, may import every layer (modules, through their index). Imports here are always relative, so a forbidden import is
// recognised by its specifier; test/deploy/layers.test.ts plants one of each kind and checks that
// lint fails on it. Type-only imports count too: a shape a port and a module share lives in the port.
const upperLayers = (layer, remedy) => ({
  regex: '^(\\.\\./)+((modules|graphql|http|auth)(/|$)|(server|context)\\.js$)',
  message: `${layer} does not import modules, transports or the HTTP layer: ${remedy}.`,
});
const FORBIDDEN = {
  rest: { regex: '^(\\.\\./)+rest(/|$)', message: 'src/ does not import rest/ (the REST table sits on top of src/; only its door, src/transports/rest.ts, and src/server.ts wire it in).' },
  upperLayers: upperLayers('src/platform', 'put the shared type in the port, and hand what the port needs from a module over in src/server.ts'),
  telemetryUpperLayers: upperLayers('src/telemetry', 'the metrics declare the observer types they implement, and modules import those'),
  // Modules are flat folders: from outside, a module is modules/<m>/index.js, and any other file of it is an internal one.
  moduleInternals: { regex: '(^|/)modules/[^/]+/(?!index\\.js$)[^/]+$', message: 'Outside a module, import it through its index.ts (modules/<module>/index.js), never one of its files.' },
  otherModuleInternals: {
    regex: '^\\.\\./[^/.][^/]*/(?!index\\.js$)[^/]+$|(^|/)modules/[^/]+/(?!index\\.js$)[^/]+$',
    message: "A module imports another module through its index.ts ('../<module>/index.js'), never one of its files.",
  },
  // A module's index exports its store's factory only for src/server.ts: every name ending in Store.
  otherModuleStore: {
    regex: '^\\.\\./[^/.][^/]*/index\\.js$|(^|/)modules/[^/]+/index\\.js$',
    importNamePattern: 'Store$',
    message: "A module does not import another module's store: call that module's service.",
  },
  anyModuleStore: {
    regex: '(^|/)modules/[^/]+/index\\.js$',
    importNamePattern: 'Store$',
    message: "Only a module itself (and the composition root, src/server.ts and src/services.ts, which wire it) imports a module's store: call its service.",
  },
  restModules: {
    regex: '^(\\.\\./)+src/modules(/|$)',
    message: 'rest/ does not import src/modules: a REST entry runs a GraphQL operation (src/graphql), and the rules live in the services behind it.',
  },
  graphqlHttp: {
    regex: '^(\\.\\./)+http(/|$)',
    message: 'src/graphql does not import the HTTP layer (src/http): what both need lives below them (src/platform), and what the GraphQL layer needs from src/http, src/server.ts hands over.',
  },
};
const layerRule = (...forbidden) => ({ 'no-restricted-imports': ['error', { patterns: forbidden }] });

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'src/generated/', '.data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.mjs', 'codegen.ts', 'scripts/*.mjs', 'test/support/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        globalThis: 'readonly',
        document: 'readonly',
        window: 'readonly',
        Worker: 'readonly',
        localStorage: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      // An async function that implements a Promise-returning interface stays async even with no
      // await inside, so that a throw becomes a rejection, as its callers expect.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read JSON answers (supertest's body is any by nature) and assert on them field by
    // field; typing every answer would only restate the assertions. The other checked rules apply.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  { files: ['**/*.mjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
  // One block per layer: a later block replaces an earlier one's options, so each lists all it forbids.
  { files: ['src/**/*.ts'], ignores: ['src/server.ts', 'src/services.ts'], rules: layerRule(FORBIDDEN.rest, FORBIDDEN.moduleInternals, FORBIDDEN.anyModuleStore) },
  { files: ['src/server.ts'], rules: layerRule(FORBIDDEN.moduleInternals) },
  // The REST door mounts the REST table.
  { files: ['src/transports/rest.ts'], rules: layerRule(FORBIDDEN.moduleInternals, FORBIDDEN.anyModuleStore) },
  // The services' half of the composition root: it makes the stores, never the transports.
  { files: ['src/services.ts'], rules: layerRule(FORBIDDEN.rest, FORBIDDEN.moduleInternals) },
  { files: ['src/platform/**/*.ts'], rules: layerRule(FORBIDDEN.rest, FORBIDDEN.upperLayers, FORBIDDEN.anyModuleStore) },
  { files: ['src/telemetry/**/*.ts'], rules: layerRule(FORBIDDEN.rest, FORBIDDEN.telemetryUpperLayers, FORBIDDEN.anyModuleStore) },
  { files: ['src/graphql/**/*.ts'], rules: layerRule(FORBIDDEN.rest, FORBIDDEN.graphqlHttp, FORBIDDEN.moduleInternals, FORBIDDEN.anyModuleStore) },
  { files: ['src/modules/**/*.ts'], rules: layerRule(FORBIDDEN.rest, FORBIDDEN.otherModuleInternals, FORBIDDEN.otherModuleStore) },
  { files: ['rest/**/*.ts'], rules: layerRule(FORBIDDEN.restModules) },
  { files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'], ignores: ['test/modules/**'], rules: layerRule(FORBIDDEN.moduleInternals) },
);
