import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { listedEtags, versionOfEtag } from '../../platform/http/entity-tags.ts';
import type { ChangeType } from '../calendar.tables.ts';
import { findVersion } from './changes.repository.ts';

/**
 * Conditional writes (issue 23, RFC 9110 §13.1.1, RFC 6585 §3): a write to
 * an item that sends `If-Match` is made only if one of the tags names the
 * item's current row version (its `calendar_changes.seq`), else a 412 with
 * nothing written; `*` asks only that the item exists. With
 * `REQUIRE_IF_MATCH`, a write without the header is a 428. The version is
 * compared, not the whole tag: a tag names the version and the bytes of
 * one representation (a language, a caller), and any representation of the
 * current version is current.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route writes the item its URL names (update, delete): it honours If-Match and REQUIRE_IF_MATCH, documented as 412 and 428. */
    writesItem?: boolean;
  }
}

/** What a write to an item must find, from its request. */
export interface WritePrecondition {
  /** The If-Match field as sent. */
  readonly ifMatch: string | undefined;
  /** REQUIRE_IF_MATCH: a write without If-Match is refused. */
  readonly required: boolean;
}

/** The precondition of a request to a route that writes an item; `undefined` for any other route (reads, creates, imports). */
export function preconditionOf(request: FastifyRequest, config: Pick<Config, 'requireIfMatch'>): WritePrecondition | undefined {
  if (request.routeOptions.config.writesItem !== true) return undefined;
  return { ifMatch: request.headers['if-match'], required: config.requireIfMatch };
}

/** Whether a request sends If-Match: a missing item is then a 412, decided after authorization. */
export function sendsIfMatch(request: FastifyRequest): boolean {
  return request.headers['if-match'] !== undefined;
}

export const preconditionErrors = {
  failed: (why: string) =>
    new AppError(412, 'rest_precondition_failed', `${why} Read the item again (its ETag) and send the change with If-Match naming it.`),
  required: () =>
    new AppError(428, 'rest_precondition_required', "This write must be conditional: send If-Match with the item's ETag (from a GET)."),
};

/** What a write's precondition is read from: the request context of the write (common/context.ts). */
interface Preconditioned {
  readonly precondition?: WritePrecondition;
}

/**
 * The error for a write whose item does not exist: a 412 when it sent
 * If-Match (even `*`: there is no current representation to match), else
 * the resource's own not-found error.
 */
export function missingItem(ctx: Preconditioned | undefined, notFound: AppError): AppError {
  return ctx?.precondition?.ifMatch === undefined ? notFound : preconditionErrors.failed('The item does not exist.');
}

/**
 * Checks the precondition of a write to an item (`type`, `id`) that the
 * write's transaction `trx` holds: the version is read there, after the row
 * lock, so a concurrent write of the item either committed before (and its
 * version is seen) or waits for this one. Called once per write, after the
 * caller's permission checks and before anything is written.
 */
export async function checkPrecondition(trx: Db, ctx: Preconditioned, type: ChangeType, id: number): Promise<void> {
  const precondition = ctx.precondition;
  if (precondition === undefined) return;
  const { ifMatch, required } = precondition;
  if (ifMatch === undefined) {
    if (required) throw preconditionErrors.required();
    return;
  }
  const listed = listedEtags(ifMatch);
  if (listed === '*') return;
  // A malformed field names no tag, which cannot match (412 rather than 400: the condition is simply false).
  if (listed === undefined) throw preconditionErrors.failed('If-Match is not a list of entity-tags.');
  // Strong comparison: a weak tag, or one this server never made, names no version.
  const versions = listed.map(versionOfEtag).filter((version) => version !== undefined);
  if (versions.length === 0) throw preconditionErrors.failed('If-Match names no ETag of this item (weak tags never match).');
  const current = await findVersion(trx, type, id);
  if (current === undefined || !versions.includes(current)) throw preconditionErrors.failed('The item changed since the ETag sent.');
}
