import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../../platform/db/schema.ts';
import { deleteStoredFiles, insertStoredFile, readStoredFile } from './media.repository.ts';

/**
 * Where the media library keeps its files, by key (their path under `/media/`, `2026/12/poster-150x150.jpg`).
 * Writes take the transaction that records or removes the image, so that a store that can join it (the
 * database) changes the files with the row or not at all; an object store would be one more implementation.
 */
export interface MediaStorage {
  /** Stores a new file; a key already taken is an error (files are never overwritten: their URLs are immutable). */
  put(trx: Db, key: string, bytes: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  delete(trx: Db, keys: readonly string[]): Promise<void>;
}

/** The default: bytes in the `media_files` table, seen by every process and machine on the database, and in its backups. */
export class DatabaseMediaStorage implements MediaStorage {
  constructor(private readonly db: Db) {}

  put(trx: Db, key: string, bytes: Buffer): Promise<void> {
    return insertStoredFile(trx, key, bytes);
  }

  get(key: string): Promise<Buffer | undefined> {
    return readStoredFile(this.db, key);
  }

  delete(trx: Db, keys: readonly string[]): Promise<void> {
    return deleteStoredFiles(trx, keys);
  }
}

/** `MEDIA_DIR`: files in a directory of one machine (or a shared file system), under their keys. */
export class DirectoryMediaStorage implements MediaStorage {
  constructor(private readonly root: string) {}

  /** The file of a key, never outside the root: keys are made by the media library, this is a second lock. */
  private pathOf(key: string): string {
    const file = path.resolve(this.root, key);
    if (!file.startsWith(this.root + path.sep)) throw new Error(`media key outside MEDIA_DIR: ${key}`);
    return file;
  }

  async put(_trx: Db, key: string, bytes: Buffer): Promise<void> {
    const file = this.pathOf(key);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, bytes, { flag: 'wx' });
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
      throw error;
    }
  }

  async delete(_trx: Db, keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => rm(this.pathOf(key), { force: true })));
  }
}

export function mediaStorage(db: Db, mediaDir: string | undefined): MediaStorage {
  return mediaDir === undefined ? new DatabaseMediaStorage(db) : new DirectoryMediaStorage(mediaDir);
}
