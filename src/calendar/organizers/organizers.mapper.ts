import type { LinkedPostRow, PresentedPost } from '../linked-posts/linked-posts.kind.ts';
import { withoutEmpty } from '../linked-posts/linked-posts.mapper.ts';

/** Organizer fields between `image` and `json_ld`. */
export function organizerMetaFields(row: LinkedPostRow): Record<string, unknown> {
  return { phone: row.phone, website: row.website, email: row.email };
}

/** schema.org `Person` (as the reference: `url` is the organizer's website; no `@context`). */
export function organizerJsonLd(post: PresentedPost): Record<string, unknown> {
  const { row } = post;
  return withoutEmpty({
    '@type': 'Person',
    name: post.name,
    description: post.descriptionText,
    image: post.imageUrl,
    url: row.website,
    telephone: row.phone,
    email: row.email,
    sameAs: row.website,
  });
}
