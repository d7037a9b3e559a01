import type { FastifyReply } from 'fastify';

/**
 * An item as a read or a write answers it, with its row version then
 * (`calendar_changes.seq`; `undefined`: it no longer exists). The answer's
 * ETag names the version (platform/http/entity-tags.ts), which a later
 * write's If-Match is checked against (changes/changes.preconditions.ts).
 */
export interface Versioned<T> {
  readonly item: T;
  readonly version: number | undefined;
}

/** The item to send, its version handed to the reply for its ETag (conditional-get.ts). */
export function sendVersioned<T>(reply: FastifyReply, { item, version }: Versioned<T>): T {
  if (version !== undefined) reply.itemVersion = version;
  return item;
}
