import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FileMigrationProvider, type Migration, type MigrationProvider } from 'kysely';

/**
 * The migrations of several folders (each surface keeps its own) as one
 * history, which Kysely's migrator orders by name across all of them. The
 * database records an applied migration by its name alone, so a name found
 * in two folders is refused rather than one of them silently never run.
 */
export class MigrationFolders implements MigrationProvider {
  constructor(private readonly folders: readonly string[]) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    const folderOf = new Map<string, string>();
    for (const folder of this.folders) {
      const found = await new FileMigrationProvider({ fs, path, migrationFolder: folder }).getMigrations();
      for (const [name, migration] of Object.entries(found)) {
        const other = folderOf.get(name);
        if (other !== undefined) throw new Error(`Migration ${name} is in two folders: ${other} and ${folder}`);
        folderOf.set(name, folder);
        migrations[name] = migration;
      }
    }
    return migrations;
  }
}
