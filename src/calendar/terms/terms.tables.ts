import type { Taxonomy } from '../calendar.tables.ts';

/** Tables of migration 2026-11-22T0530-term-names. */
declare module '../../platform/db/schema.ts' {
  interface Database {
    term_names: TermNameTable;
  }
}

/** One unique key per (taxonomy, parent, language, folded name); see `nameKey`. */
export interface TermNameTable {
  taxonomy: Taxonomy;
  /** 0 for top-level terms. */
  parent_key: number;
  language: string;
  name_key: string;
  term_id: number;
}
