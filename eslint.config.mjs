// Lint: ESLint's and typescript-eslint's recommended rules, type-checked (they see the types, so
// they catch `[object Object]` in strings, floating promises, awaits of non-promises and values
// of type any flowing into typed code). Generated and built code is skipped.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
);
