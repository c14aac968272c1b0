import path from 'node:path';
import eslint from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

const CONSOLE_MESSAGE = 'Stdout is a protocol channel: write through src/cli/output.ts.';
const NO_STDOUT = { object: 'process', property: 'stdout', message: CONSOLE_MESSAGE };
const NO_JSON_PARSE = {
  object: 'JSON',
  property: 'parse',
  message: 'Parse at the edge: JSON.parse belongs in the edge modules listed in eslint.config.js.',
};
/** Modules that take input from outside the process and parse it. */
const EDGE_MODULES = [
  'src/protocol/decode.ts',
  'src/protocol/legacy-allow-list.ts',
  // Bodies and stream events from LLM endpoints.
  'src/intel/decode-json.ts',
  // The fake LLM server's request bodies and playbook files.
  'src/testing/fake-llm/read-json-body.ts',
  'src/testing/fake-llm/load-playbook.ts',
  // Rows read back from the SQLite store.
  'src/store/rows.ts',
  // JSON-RPC request bodies `arbor serve` is sent.
  'src/serve/http-app.ts',
  // HTTP+JSON (REST) request bodies `arbor serve` is sent.
  'src/serve/rest-call.ts',
  // Child results that are JSON text, re-parsed for the parent.
  'src/supervisor/node/distill.ts',
  // Log and crash-report lines a child writes on stderr, shown by their message.
  'src/supervisor/node/stderr-line.ts',
  // Jobs and stream entries of the fleet, parsed once their MAC verifies.
  'src/fleet/envelope.ts',
  // The egress proxy's control lines and the session requests on a node's control.sock.
  'src/tools/egress/egress-control.ts',
  // Recorded sub-agent results (JSON text) a replayed node compares without their accounting.
  'src/child/replay-model.ts',
  // Run files (`arbor runs export`), perhaps written on another machine by another arbor.
  'src/protocol/load-run-file.ts',
];

/**
 * The folders of src/, lowest first (docs/architecture.md). A folder may import only folders at its
 * own level or below; type-only imports obey the same order. `index` is src/index.ts, the package's
 * main entry. `testing` (the fake LLM, exported as `arbor/testing`) sits just below `cli`, whose
 * `arbor mock-llm` serves it.
 */
const LAYERS = [
  ['protocol'],
  ['authority'],
  ['intel', 'tools'],
  ['loop'],
  ['child'],
  ['store', 'telemetry'],
  ['supervisor'],
  ['fleet', 'plan'],
  ['runtime'],
  ['config'],
  ['api', 'replay'],
  ['dashboard'],
  ['serve'],
  ['testing'],
  ['cli'],
  ['index'],
];
const LAYER_ELEMENTS = LAYERS.flat().map((type) => ({
  type,
  pattern: type === 'index' ? 'src' : `src/${type}`,
  partialMatch: false,
}));
const LAYER_POLICIES = [
  ...LAYERS.flatMap((level, index) =>
    level.map((type) => ({
      from: { element: { type } },
      allow: { to: { element: { type: LAYERS.slice(0, index + 1).flat() } } },
    })),
  ),
];

export default tseslint.config(
  // `bench/peers/` is a separate package (other frameworks, for the delegation benchmark), never
  // linted or type-checked with arbor. `examples/library/` is code as a user writes it, against
  // the installed package: the consumer test type-checks it with `tsc --strict`.
  {
    ignores: ['dist/', 'dist-bench/', 'node_modules/', 'coverage/', 'bench/peers/', 'examples/'],
  },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration',
          message: 'Use explicit named exports, not `export *`.',
        },
      ],
    },
  },
  // The layer order between the folders of src/: an import of a folder above is an error.
  {
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': LAYER_ELEMENTS,
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
      'import/resolver': {
        [path.join(import.meta.dirname, 'scripts/eslint-import-resolver.cjs')]: {},
        node: {},
      },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          message:
            '{{ from.element.type }} may not import {{ to.element.type }}, a layer above it (the order is LAYERS in eslint.config.js).',
          policies: LAYER_POLICIES,
        },
      ],
    },
  },
  // Past 400 lines a file is split before it grows (STYLE.md): hub files that keep growing are how
  // a codebase rots. Blank lines and comments count: they are what a reader scrolls through.
  {
    files: ['src/**/*.ts', 'ui/src/**/*.{ts,tsx}'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  // The default price table (about 0.8 MB of data, some 80 ms to load) is the supervisor's: a
  // child reports tokens and never prices them, so only src/supervisor/pricing/ may import it
  // (test/supervisor/child-bundle.test.ts checks the child's bundles).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/supervisor/pricing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@pydantic/genai-prices',
              message:
                'The price table is the supervisor’s: import it from src/supervisor/pricing/.',
            },
          ],
        },
      ],
    },
  },
  // Parse at the edge: JSON.parse only in the modules that take input from outside.
  // Stdout is a protocol channel: only the CLI's output module touches the process streams.
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'console', message: CONSOLE_MESSAGE }],
      'no-restricted-properties': ['error', NO_STDOUT, NO_JSON_PARSE],
    },
  },
  {
    files: EDGE_MODULES,
    rules: { 'no-restricted-properties': ['error', NO_STDOUT] },
  },
  // A child loads the MCP client only when its payload grants a server (a dynamic import in
  // child-tools.ts); the tools barrel re-exports it, so child code imports tool modules directly.
  {
    files: ['src/child/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '../tools/index.js',
              message: 'It loads the MCP client into every child: import the tool module itself.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'src/cli/output.ts',
      'src/cli/main.ts',
      'src/child/child-start.ts',
      'src/child/snapshot-main.ts',
      // The egress proxy process: its stdout is its control channel.
      'src/tools/egress/proxy-main.ts',
    ],
    rules: {
      'no-console': 'off',
      'no-restricted-globals': 'off',
      'no-restricted-properties': ['error', NO_JSON_PARSE],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: {
        process: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        console: 'readonly',
      },
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', exports: 'writable' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-console': 'off',
      'no-restricted-properties': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
