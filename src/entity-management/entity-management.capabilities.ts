import { atLeast, defineCapabilities, type CapabilityOf } from '../platform/auth/capabilities.ts';

/** Reading records and running read actions, writing them, and reloading the action definitions. */
export const entityManagementCapabilities = defineCapabilities({
  entities_read: atLeast('subscriber'),
  entities_write: atLeast('editor'),
  actions_reload: atLeast('administrator'),
});
export type EntityManagementCapability = CapabilityOf<typeof entityManagementCapabilities>;
export const { can } = entityManagementCapabilities;

declare module '../platform/auth/capabilities.ts' {
  interface SurfaceCapabilities {
    'entity-management': EntityManagementCapability;
  }
}
