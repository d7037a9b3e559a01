import type { Role } from '../../platform/auth/capabilities.ts';
import { can, type CalendarCapability } from '../calendar.capabilities.ts';
import type { AdminDictionary } from './admin.i18n.ts';

/** The editor's screens beyond the events, each with the capability its writes need in the API. */
const SCREENS: readonly { readonly name: keyof AdminDictionary['nav']; readonly path: string; readonly access: CalendarCapability }[] = [
  { name: 'venues', path: '/admin/venues/', access: 'edit' },
  { name: 'organizers', path: '/admin/organizers/', access: 'edit' },
  { name: 'categories', path: '/admin/categories/', access: 'manage_categories' },
  { name: 'tags', path: '/admin/tags/', access: 'manage_tags' },
  { name: 'media', path: '/admin/media/', access: 'upload_files' },
  { name: 'users', path: '/admin/users/', access: 'manage_options' },
  { name: 'webhooks', path: '/admin/webhooks/', access: 'manage_webhooks' },
  { name: 'settings', path: '/admin/settings', access: 'manage_options' },
];

/** The screens the menu offers a role: those it may use. */
export function screensFor(role: Role | null): typeof SCREENS {
  return SCREENS.filter((screen) => can(role, screen.access));
}
