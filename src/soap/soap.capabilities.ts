import { atLeast, defineCapabilities, type CapabilityOf } from '../platform/auth/capabilities.ts';

/** Reading the pings received (an administration page); sending pings needs WS-Security, not a role. */
export const soapCapabilities = defineCapabilities({
  soap_pings_read: atLeast('administrator'),
});

declare module '../platform/auth/capabilities.ts' {
  interface SurfaceCapabilities {
    soap: CapabilityOf<typeof soapCapabilities>;
  }
}
