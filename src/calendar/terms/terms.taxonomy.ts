import type { CalendarCapability } from '../calendar.capabilities.ts';
import type { Taxonomy } from '../calendar.tables.ts';

/**
 * What differs between event categories and event tags. Everything else in
 * this folder is shared and parameterised by one of these descriptors.
 */
export interface TaxonomyInfo {
  readonly taxonomy: Taxonomy;
  /** Route segment and envelope key: `categories`, `tags`. */
  readonly collection: 'categories' | 'tags';
  /** The reference's WordPress taxonomy name, shown in `taxonomy` fields. */
  readonly wpTaxonomy: string;
  /** Creating, editing and deleting terms (as the reference: categories author+, tags editor+). */
  readonly manageCapability: CalendarCapability;
  readonly hierarchical: boolean;
  readonly singular: string;
  /** WordPress's `term_exists` message (hierarchical taxonomies compare siblings only). */
  readonly termExistsMessage: string;
}

export const CATEGORIES: TaxonomyInfo = {
  taxonomy: 'category',
  collection: 'categories',
  wpTaxonomy: 'tribe_events_cat',
  manageCapability: 'manage_categories',
  hierarchical: true,
  singular: 'category',
  termExistsMessage: 'A term with the name provided already exists with this parent.',
};

export const TAGS: TaxonomyInfo = {
  taxonomy: 'tag',
  collection: 'tags',
  wpTaxonomy: 'post_tag',
  manageCapability: 'manage_tags',
  hierarchical: false,
  singular: 'tag',
  termExistsMessage: 'A term with the name provided already exists in this taxonomy.',
};

export function taxonomyInfo(taxonomy: Taxonomy): TaxonomyInfo {
  return taxonomy === 'category' ? CATEGORIES : TAGS;
}
