import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import type { RequestContext } from '../common/context.ts';
import { canRead } from '../posts/posts.access.ts';
import type { PostPasswords } from '../posts/posts.passwords.ts';
import { invalidParam, parsePositiveInt } from '../common/wire.ts';
import type { LinkedPostKind, LinkedPostRow } from './linked-posts.kind.ts';
import { findMatchingPost, findPosts } from './linked-posts.repository.ts';
import { presentPostsWith, unlockedWithoutPassword, type PostAssets } from './linked-posts.present.ts';
import { insertLinkedPost, type PostWriteInput } from './linked-posts.writes.ts';

type Input = Record<string, unknown>;

/**
 * How an event write names its venue or organizers: ids, `{id}` objects or
 * inline objects (the reference's forms with deviations 2, 10 and 13).
 */

/** Values that mean "none": `0`, `""`, `null`, `false`, `[]`. */
export function isEmptyLink(value: unknown): boolean {
  return (
    value === null ||
    value === undefined ||
    value === false ||
    value === 0 ||
    (typeof value === 'string' && /^\s*0?\s*$/.test(value)) ||
    (Array.isArray(value) && value.every(isEmptyLink))
  );
}

/** The entries of a link value: arrays as they are, CSV strings of ids split, anything else one entry. */
export function linkEntries(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.filter((entry) => !isEmptyLink(entry));
  if (typeof value === 'string' && value.includes(','))
    return value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
  return isEmptyLink(value) ? [] : [value];
}

function isPlainObject(value: unknown): value is Input {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function existingLinkableIds(db: Db, kind: LinkedPostKind, ids: readonly number[]): Promise<Set<number>> {
  const rows = await findPosts(db, kind, ids);
  return new Set(rows.filter((row) => row.status !== 'trash').map((row) => row.id));
}

/** The id an entry names (an id, numeric text, `{id}`); null for an inline object, undefined for what names none. */
export function linkedIdOf(entry: unknown): number | null | undefined {
  if (!isPlainObject(entry)) return parsePositiveInt(entry);
  return isEmptyLink(entry.id) ? null : parsePositiveInt(entry.id);
}

/**
 * One entry as a post id: an id (number or numeric text), `{id}`, or an
 * inline object matched by name and `kind.matchColumn` or else created with
 * the rules and rights of the create route. Errors name `param`.
 */
export async function resolveLinkEntry(
  trx: Db,
  kind: LinkedPostKind,
  entry: unknown,
  ctx: RequestContext,
  param: string,
  passwords: PostPasswords,
): Promise<number> {
  const id = linkedIdOf(entry);
  if (id === undefined) throw invalidParam(param);
  if (id !== null) {
    if (!(await existingLinkableIds(trx, kind, [id])).has(id)) throw invalidParam(param);
    return id;
  }
  // The route's schema validated and coerced the fields (events.schemas.ts, LinkSchema); the create rules check the rest.
  const input = entry as PostWriteInput;
  const named = input[kind.nameField];
  if (typeof named !== 'string' || named.trim() === '') throw invalidParam(param);
  const name = named.trim();
  const match = String(input[kind.matchColumn] ?? '').trim();
  const existing = await findMatchingPost(trx, kind, name, match);
  if (existing !== undefined) return existing;
  try {
    return await insertLinkedPost(trx, kind, ctx, input, passwords);
  } catch (error) {
    // Field-level problems of an inline object are reported on the event's argument.
    if (error instanceof AppError && error.code === 'rest_invalid_param') throw invalidParam(param);
    throw error;
  }
}

/** What an event write links to, and the check that may refuse it (see `checkedAhead`). */
export interface CheckedLinks<T> {
  readonly value: T;
  readonly checked: Promise<unknown>;
}

/**
 * A link's value ahead of its check: `named` (what the check resolves to, when the input tells it without a read) at
 * once, the check still to be answered, so that the statement storing the link goes out behind it and a refusal (the
 * check fails first: `behind`) rolls that back; else the check's own value once it has answered.
 */
export async function checkedAhead<T>(checked: Promise<T>, named: T | undefined): Promise<CheckedLinks<T>> {
  checked.catch(() => undefined); // its refusal is the write's, which waits for it (behind)
  return { value: named === undefined ? await checked : named, checked };
}

/** More posts than any event links to; beyond it a list is refused rather than sent to SQL (as term lists are). */
export const MAX_LINKED_POSTS = 500;

/**
 * Entries as post ids, in order, each once (see resolveLinkEntry): those named by id checked in one read, then the
 * inline ones found or created one after the other. Errors name `param`.
 */
export async function resolveLinkEntries(
  trx: Db,
  kind: LinkedPostKind,
  entries: readonly unknown[],
  ctx: RequestContext,
  param: string,
  passwords: PostPasswords,
): Promise<number[]> {
  if (entries.length > MAX_LINKED_POSTS) throw invalidParam(param, `${param} may name at most ${MAX_LINKED_POSTS} posts.`);
  const named = entries.map(linkedIdOf);
  if (named.includes(undefined)) throw invalidParam(param);
  const byId = named.filter((id): id is number => typeof id === 'number');
  const linkable = await existingLinkableIds(trx, kind, byId);
  if (byId.some((id) => !linkable.has(id))) throw invalidParam(param);
  const ids = new Set<number>();
  for (const [index, entry] of entries.entries())
    ids.add(named[index] ?? (await resolveLinkEntry(trx, kind, entry, ctx, param, passwords)));
  return [...ids];
}

/** 400 naming `param` unless every id is a post of this kind the caller may read (one it may not is unknown to it). */
export async function assertPostsReadable(
  db: Db,
  kind: LinkedPostKind,
  ids: readonly number[],
  param: string,
  ctx: RequestContext,
): Promise<void> {
  const now = new Date();
  const readable = new Set((await findPosts(db, kind, ids)).filter((row) => canRead(ctx.user, row, now)).map((row) => row.id));
  if (ids.some((id) => !readable.has(id))) throw invalidParam(param);
}

/**
 * Posts embedded in events, first step: only those the caller may read (a
 * published event never reveals its draft or private venue).
 */
export async function findEmbeddable(db: Db, kind: LinkedPostKind, ids: readonly number[], ctx: RequestContext): Promise<LinkedPostRow[]> {
  const now = new Date();
  return (await findPosts(db, kind, ids)).filter((row) => canRead(ctx.user, row, now));
}

/** Second step, once texts and images are loaded: list representations, stripped whenever the post has a password. */
export async function presentEmbedded(
  kind: LinkedPostKind,
  rows: readonly LinkedPostRow[],
  ctx: RequestContext,
  assets: PostAssets,
): Promise<Map<number, object>> {
  const items = await presentPostsWith(kind, rows, ctx.site, { single: false, unlock: unlockedWithoutPassword }, assets);
  return new Map(rows.map((row, index) => [row.id, items[index] as object]));
}
