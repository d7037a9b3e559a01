import { atLeast, defineCapabilities, type CapabilityOf } from '../platform/auth/capabilities.ts';

/**
 * The reference's primitive capabilities (docs/calendar-compatibility.md), shared
 * by events, venues and organizers; terms: categories need author+, tags editor+.
 */
export const calendarCapabilities = defineCapabilities({
  read: atLeast('subscriber'),
  read_private: atLeast('editor'),
  edit: atLeast('contributor'),
  edit_others: atLeast('editor'),
  edit_private: atLeast('editor'),
  edit_published: atLeast('author'),
  delete: atLeast('contributor'),
  delete_others: atLeast('editor'),
  delete_private: atLeast('editor'),
  delete_published: atLeast('author'),
  publish: atLeast('author'),
  upload_files: atLeast('author'),
  manage_categories: atLeast('author'),
  manage_tags: atLeast('editor'),
  // Webhook subscriptions send calendar changes to other systems: site administrators only, as WordPress's manage_options.
  manage_webhooks: atLeast('administrator'),
  // The site's settings (/wp/v2/settings): WordPress's own name for them.
  manage_options: atLeast('administrator'),
});
export type CalendarCapability = CapabilityOf<typeof calendarCapabilities>;
export const { can } = calendarCapabilities;

declare module '../platform/auth/capabilities.ts' {
  interface SurfaceCapabilities {
    calendar: CalendarCapability;
  }
}
