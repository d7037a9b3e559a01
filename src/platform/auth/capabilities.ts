/**
 * Roles and what they may do: the only place permissions are defined.
 *
 * Calendar capabilities are the reference's primitive capabilities
 * (calendar-reference.md §1.5), shared by events, venues and organizers.
 */
export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof ROLES)[number];

export const CAPABILITIES = [
  // Calendar posts (events, venues, organizers).
  'read',
  'read_private',
  'edit',
  'edit_others',
  'edit_private',
  'edit_published',
  'delete',
  'delete_others',
  'delete_private',
  'delete_published',
  'publish',
  'upload_files',
  // Calendar terms: categories need author+, tags editor+.
  'manage_categories',
  'manage_tags',
  // Entity-management surface.
  'entities_read',
  'entities_write',
  'actions_reload',
  // Platform administration.
  'soap_pings_read',
  'users_manage',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

const editorPosts: readonly Capability[] = [
  'read',
  'read_private',
  'edit',
  'edit_others',
  'edit_private',
  'edit_published',
  'delete',
  'delete_others',
  'delete_private',
  'delete_published',
  'publish',
  'upload_files',
  'manage_categories',
  'manage_tags',
];

const GRANTS: Readonly<Record<Role, ReadonlySet<Capability>>> = {
  administrator: new Set<Capability>([
    ...editorPosts,
    'entities_read',
    'entities_write',
    'actions_reload',
    'soap_pings_read',
    'users_manage',
  ]),
  editor: new Set<Capability>([...editorPosts, 'entities_read', 'entities_write']),
  author: new Set<Capability>([
    'read',
    'edit',
    'edit_published',
    'delete',
    'delete_published',
    'publish',
    'upload_files',
    'manage_categories',
    'entities_read',
  ]),
  contributor: new Set<Capability>(['read', 'edit', 'delete', 'entities_read']),
  subscriber: new Set<Capability>(['read', 'entities_read']),
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** `role` is `null` for anonymous callers, who hold no capability. */
export function can(role: Role | null, capability: Capability): boolean {
  return role !== null && GRANTS[role].has(capability);
}
