import type { Db } from '../../platform/db/schema.ts';
import { loadTranslations, type Translated } from '../posts/posts.texts.ts';
import type { RequestContext, Site } from '../common/context.ts';
import { renderParagraphs, textOfSanitized } from '../common/html.ts';
import { loadImages, type ImageResponse } from '../common/images.ts';
import { globalId, permalinks } from '../common/wire.ts';
import type { LinkedPostKind, LinkedPostRow } from './linked-posts.kind.ts';
import { toLinkedPostResponse } from './linked-posts.mapper.ts';

export type Representation = Record<string, unknown>;

/** Decides per row whether a password-protected post is shown unstripped. */
export type Unlock = (row: LinkedPostRow) => boolean;

/** Embedded in events: stripped whenever the post itself has a password, whatever the event's request unlocked. */
export const unlockedWithoutPassword: Unlock = (row) => row.password_hash === null;

/** What a write answers with: the post as written, whoever wrote it may see it whole. */
export const alwaysUnlocked: Unlock = () => true;

/** What representations of posts are made from besides their rows: texts and images, loaded in batches. */
export interface PostAssets {
  readonly texts: ReadonlyMap<number, Translated>;
  readonly images: ReadonlyMap<number, ImageResponse>;
}

/** Representations of many posts with a fixed number of queries (translations, images). */
export async function presentPosts(
  db: Db,
  kind: LinkedPostKind,
  rows: readonly LinkedPostRow[],
  ctx: RequestContext,
  options: { single: boolean; unlock: Unlock },
): Promise<Representation[]> {
  const [texts, images] = await Promise.all([
    loadTranslations(
      db,
      kind.type,
      rows.map((row) => row.id),
      ctx.language,
      ctx.defaultLanguage,
    ),
    loadImages(
      db,
      rows.map((row) => row.image_id),
      ctx.site.baseUrl,
    ),
  ]);
  return presentPostsWith(kind, rows, ctx.site, options, { texts, images });
}

/** Representations of posts whose texts and images are already loaded. */
export async function presentPostsWith(
  kind: LinkedPostKind,
  rows: readonly LinkedPostRow[],
  site: Site,
  options: { single: boolean; unlock: Unlock },
  { texts, images }: PostAssets,
): Promise<Representation[]> {
  return Promise.all(
    rows.map(async (row) => {
      const text = texts.get(row.id) ?? {};
      const slug = text.slug ?? '';
      const description = text.description ?? '';
      const image = row.image_id === null ? undefined : images.get(row.image_id);
      const post = {
        row,
        name: text[kind.nameField] ?? '',
        description: renderParagraphs(description),
        excerpt: renderParagraphs(text.excerpt ?? ''),
        descriptionText: textOfSanitized(description),
        slug,
        url: permalinks[kind.type](site.baseUrl, slug),
        image: image ?? false,
        imageUrl: image?.url,
      };
      const stripped = !options.unlock(row);
      return toLinkedPostResponse(kind, post, { single: options.single, stripped, globalId: globalId(site.baseUrl, row.id) });
    }),
  );
}
