// The layer rules of docs/architecture.md ("Rules the linter enforces"), its
// limit on the length of a route-registration function and its warning on the
// length of a source file, as ESLint configuration.
// eslint.config.js spreads this array; test/platform/lint-boundaries.test.ts
// lints snippets with it alone.
import { builtinRules } from 'eslint/use-at-your-own-risk';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// Flat config replaces a rule's options for each file that a later block
// matches, so five restrictions written on `no-restricted-imports` would
// override one another (a calendar routes file is under three). Each rule is
// the built-in one under its own name, and they all apply.
const restrictedImports = tseslint.plugin.rules['no-restricted-imports'];
const restrictedSyntax = builtinRules.get('no-restricted-syntax');
const layers = {
  meta: { name: 'layers' },
  rules: {
    'surfaces-independent': restrictedImports,
    'platform-knows-no-surface': restrictedImports,
    'routes-without-repositories': restrictedImports,
    'migrations-frozen': restrictedImports,
    'sql-imports-in-repositories': restrictedImports,
    'sql-calls-in-repositories': restrictedSyntax,
  },
};

const SURFACES = ['calendar', 'entity-management', 'soap'];
// Counted as `wc -l` counts a file that ends with a newline: blank lines and comments too (issue 20). A warning:
// a file is split where its jobs part, never at a line count.
const MAX_SOURCE_LINES = 400;
// Code lines only. A registration function declares its routes and names their handlers (issue 38).
const MAX_REGISTRATION_LINES = 60;
const SEE = '(docs/architecture.md, "Rules the linter enforces")';

// Matches a relative import that climbs to src/ and enters one of `folders`;
// no folder of a surface shares a name with another surface.
const intoFolder = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;

const surfaceRules = SURFACES.map((surface) => {
  const others = SURFACES.filter((other) => other !== surface);
  return {
    files: [`src/${surface}/**/*.ts`],
    rules: {
      'layers/surfaces-independent': [
        'error',
        {
          patterns: [
            {
              regex: intoFolder(others),
              message: `Surfaces are independent: ${surface} may not import ${others.join(' or ')}; share through src/platform ${SEE}.`,
            },
          ],
        },
      ],
    },
  };
});

// SQL (a query builder's entry point or raw `sql`) is written only here.
const SQL_FILES = ['src/**/*.repository.ts', 'src/**/migrations/**/*.ts', 'src/**/dialect/**/*.ts', 'src/platform/db/database.ts'];
const SQL_MESSAGE = `SQL belongs in a *.repository.ts ${SEE}.`;
// `.with(` is also Array.prototype.with(index, value): only Kysely's form, a
// CTE name or builder then a callback, is refused.
const QUERY_ENTRY_POINTS = [
  'selectFrom',
  'selectNoFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'withRecursive',
  'executeQuery',
];

export default [
  { name: 'layers: plugin', plugins: { layers } },
  { name: 'layers: TypeScript sources', files: ['src/**/*.ts'], languageOptions: { parser: tseslint.parser } },
  ...surfaceRules,
  {
    name: 'layers: the platform knows no surface',
    files: ['src/platform/**/*.ts', 'src/config/**/*.ts'],
    rules: {
      'layers/platform-knows-no-surface': [
        'error',
        {
          patterns: [
            {
              regex: intoFolder(SURFACES),
              message: `The platform knows no surface: src/platform and src/config may not import ${SURFACES.join(', ')} ${SEE}.`,
            },
          ],
        },
      ],
    },
  },
  {
    name: 'layers: routes call services',
    files: ['src/**/*.routes.ts'],
    rules: {
      'layers/routes-without-repositories': [
        'error',
        {
          patterns: [
            {
              regex: '\\.repository(\\.[jt]s)?$',
              message: `Routes never import repositories: call a service ${SEE}.`,
            },
          ],
        },
      ],
    },
  },
  {
    name: 'layers: migrations are frozen in time',
    files: ['src/**/migrations/**/*.ts'],
    rules: {
      'layers/migrations-frozen': [
        'error',
        {
          patterns: [
            {
              regex: `^(?!(kysely|node:.+|${builtinModules.join('|')})$)`,
              message: `Migrations are frozen in time: they import only kysely and Node built-ins, never application code ${SEE}.`,
            },
          ],
        },
      ],
    },
  },
  {
    name: 'layers: a source file over 400 lines is a warning',
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['warn', { max: MAX_SOURCE_LINES, skipBlankLines: false, skipComments: false }] },
  },
  {
    name: 'layers: route handlers in functions of their own',
    files: ['src/**/*.routes.ts', 'src/**/*.plugin.ts'],
    rules: { 'max-lines-per-function': ['error', { max: MAX_REGISTRATION_LINES, skipBlankLines: true, skipComments: true }] },
  },
  {
    name: 'layers: SQL only in repositories',
    files: ['src/**/*.ts'],
    ignores: SQL_FILES,
    rules: {
      'layers/sql-imports-in-repositories': [
        'error',
        {
          paths: [{ name: 'kysely', importNames: ['sql', 'CompiledQuery'], allowTypeImports: true, message: SQL_MESSAGE }],
        },
      ],
      'layers/sql-calls-in-repositories': [
        'error',
        {
          selector: `CallExpression[callee.property.name=/^(${QUERY_ENTRY_POINTS.join('|')})$/]`,
          message: SQL_MESSAGE,
        },
        {
          selector:
            "CallExpression[callee.property.name='with'][arguments.length=2][arguments.1.type=/^(Arrow)?FunctionExpression$/]:matches([arguments.0.value=/./], [arguments.0.type=/^(Arrow)?FunctionExpression$/])",
          message: SQL_MESSAGE,
        },
      ],
    },
  },
];
