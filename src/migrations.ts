import path from 'node:path';
import { fileURLToPath } from 'node:url';

// This file's folder: src/, or dist/ when bundled, where scripts/bundle.mjs keeps the same layout.
const ROOT = path.dirname(fileURLToPath(import.meta.url));

const FOLDERS = ['platform/db/migrations', 'calendar/migrations', 'soap/migrations', 'entity-management/migrations'];

/** Every surface's migrations folder: together one history, applied in name order (platform/db/migration-folders.ts). */
export const MIGRATION_FOLDERS: readonly string[] = FOLDERS.map((folder) => path.join(ROOT, folder));
