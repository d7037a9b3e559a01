// No import cycles among the sources (type-only imports included): a rule of the
// layers (docs/architecture.md, "Rules the linter enforces"). ESLint sees one
// file at a time, so the rule reads the import graph of the files a file
// reaches, once per lint run, and reports an import whose target leads back.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import tseslint from 'typescript-eslint';

/** Relative imports of each file, resolved to absolute paths: read once per run. */
const importsOf = new Map();

function relativeImports(file) {
  let found = importsOf.get(file);
  if (found === undefined) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    found = ts
      .preProcessFile(text, true, false)
      .importedFiles.map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.resolve(path.dirname(file), name));
    importsOf.set(file, found);
  }
  return found;
}

/** Does `from` reach `target` through imports? */
function reaches(from, target) {
  const seen = new Set();
  const stack = [from];
  while (stack.length > 0) {
    const file = stack.pop();
    if (file === target) return true;
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...relativeImports(file));
  }
  return false;
}

const noImportCycles = {
  meta: { type: 'problem', messages: { cycle: "'{{source}}' imports this file back (directly or through others): an import cycle." } },
  create(context) {
    const file = context.filename;
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      if (reaches(path.resolve(path.dirname(file), source), file)) context.report({ node, messageId: 'cycle', data: { source } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

export default [
  {
    name: 'no import cycles',
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { cycles: { meta: { name: 'cycles' }, rules: { 'no-import-cycles': noImportCycles } } },
    rules: { 'cycles/no-import-cycles': 'error' },
  },
];
