#!/usr/bin/env node
// The bundle built from the TypeScript sources (scripts/bundle.mjs) when it is up to date, else the
// sources themselves through tsx: no step between an edit and `npx almanac`.
import { freshBundle } from '../scripts/bundle.mjs';

const bundle = freshBundle();
if (bundle !== undefined) {
  process.setSourceMapsEnabled(true);
  await import(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
