#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx: no build step between a clone and `npx almanac`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
