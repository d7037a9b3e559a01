/**
 * Roles, and how surfaces say what each role may do. A surface defines its
 * capabilities with the roles granted each (`defineCapabilities`) and checks
 * them with that set's `can`; app.ts registers every surface's set at boot
 * (`CapabilityRegistry`), and a route may declare only a registered one
 * (access.plugin.ts). The platform's own capability is `users_manage`.
 */
/** From the most to the least powerful. */
export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof ROLES)[number];

/** `role` and every role above it: the usual grant (`atLeast('author')`). */
export function atLeast(role: Role): readonly Role[] {
  return ROLES.slice(0, ROLES.indexOf(role) + 1);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/**
 * Each surface's capability names, keyed by surface: a surface adds its
 * entry by augmenting this interface where it defines its set, so a route's
 * declared access is checked at compile time without the platform knowing
 * any surface.
 */
export interface SurfaceCapabilities {
  platform: PlatformCapability;
}
/** A capability of any surface (what a route's `config.access` may name). */
export type Capability = SurfaceCapabilities[keyof SurfaceCapabilities];

/** One surface's capabilities and the roles granted each. */
export interface CapabilitySet<C extends string> {
  readonly grants: ReadonlyMap<C, ReadonlySet<Role>>;
  /** `role` is `null` for anonymous callers, who hold no capability. */
  readonly can: (role: Role | null, capability: C) => boolean;
}
export type CapabilityOf<S> = S extends CapabilitySet<infer C> ? C : never;

export function defineCapabilities<C extends string>(grants: Readonly<Record<C, readonly Role[]>>): CapabilitySet<C> {
  const byName = new Map<C, ReadonlySet<Role>>(Object.entries<readonly Role[]>(grants).map(([name, roles]) => [name as C, new Set(roles)]));
  return {
    grants: byName,
    can: (role, capability) => role !== null && byName.get(capability)?.has(role) === true,
  };
}

/** Every surface's capabilities, as registered at boot: what routes may declare. */
export class CapabilityRegistry {
  private readonly grants = new Map<string, ReadonlySet<Role>>();

  constructor(sets: readonly Pick<CapabilitySet<string>, 'grants'>[]) {
    for (const set of sets) {
      for (const [name, roles] of set.grants) {
        // Two surfaces granting one name differently would make a route's access depend on registration order.
        if (this.grants.has(name)) throw new Error(`Capability '${name}' is registered twice`);
        this.grants.set(name, roles);
      }
    }
  }

  has(name: string): boolean {
    return this.grants.has(name);
  }

  /** For a registered capability only: any other name is a programming error, not a refusal. */
  can(role: Role | null, name: string): boolean {
    const roles = this.grants.get(name);
    if (roles === undefined) throw new Error(`Capability '${name}' is not registered`);
    return role !== null && roles.has(role);
  }
}

type PlatformCapability = 'users_manage';

export const platformCapabilities = defineCapabilities<PlatformCapability>({
  users_manage: atLeast('administrator'),
});
