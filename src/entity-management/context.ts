import type { Definitions } from './definitions.ts';
import type { EntityBackend } from './provider/entity-provider.ts';

/** What the services of this surface are built with: the back-end and the definitions in memory. */
export interface EntityContext {
  readonly backend: EntityBackend;
  readonly definitions: Definitions;
}
