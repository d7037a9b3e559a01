/** The files of the media library when they are stored in the database (migration 2026-12-03T0100-media). */
declare module '../../platform/db/schema.ts' {
  interface Database {
    media_files: MediaFileTable;
    /** The files of deleted images, whose names are never given again (migration 2026-12-05T0100). */
    media_retired_files: { key: string };
  }
}

export interface MediaFileTable {
  /** The file's path under `/media/` (`2026/12/poster-150x150.jpg`). */
  key: string;
  bytes: Buffer;
}
