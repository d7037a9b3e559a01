import type { AuthUser } from '../../platform/auth/authenticate.ts';

/**
 * Where things are on the CalDAV service (under BASE_URL's path):
 *
 *   /dav/                                 the service root
 *   /dav/principals/users/{username}/     a user's principal; /dav/principals/anonymous/ an anonymous caller's
 *   /dav/calendars/                       the calendar home (the same for everyone; what it lists depends on the caller)
 *   /dav/calendars/events/                every event the caller may read
 *   /dav/calendars/category-{id}/         the events of one category
 *   /dav/calendars/{collection}/{id}.ics  one event (a series with its exceptions); `{uid}.ics` reads it too
 */

export type Collection = { readonly kind: 'all' } | { readonly kind: 'category'; readonly id: number };

export type Target =
  | { readonly kind: 'root' }
  | { readonly kind: 'principal'; readonly username: string | null }
  | { readonly kind: 'home' }
  | { readonly kind: 'collection'; readonly collection: Collection }
  | { readonly kind: 'resource'; readonly collection: Collection; readonly name: string };

export const SERVICE_PATH = '/dav';

function collectionOf(segment: string): Collection | undefined {
  if (segment === 'events') return { kind: 'all' };
  const match = /^category-([1-9]\d{0,14})$/.exec(segment);
  return match === null ? undefined : { kind: 'category', id: Number(match[1]) };
}

export class DavPaths {
  readonly root: string;
  readonly home: string;

  constructor(private readonly basePath: string) {
    this.root = `${basePath}${SERVICE_PATH}/`;
    this.home = `${this.root}calendars/`;
  }

  principal(user: AuthUser | null): string {
    return user === null ? `${this.root}principals/anonymous/` : `${this.root}principals/users/${encodeURIComponent(user.username)}/`;
  }

  collection(collection: Collection): string {
    return `${this.home}${collection.kind === 'all' ? 'events' : `category-${collection.id}`}/`;
  }

  resource(collection: Collection, id: number): string {
    return `${this.collection(collection)}${id}.ics`;
  }

  /** What a path (or a URL, as some clients send hrefs) names; undefined for anything else. */
  parse(pathOrUrl: string): Target | undefined {
    let path = pathOrUrl.split('?')[0] ?? '';
    if (/^https?:\/\//i.test(path)) path = new URL(path).pathname;
    if (!path.startsWith(this.root) && `${path}/` !== this.root) return undefined;
    let segments: string[];
    try {
      segments = path
        .slice(this.root.length)
        .split('/')
        .map((segment) => decodeURIComponent(segment));
    } catch {
      return undefined;
    }
    // A trailing slash is optional on collections (clients differ).
    if (segments.at(-1) === '') segments.pop();
    return this.targetOf(segments);
  }

  private targetOf(segments: readonly string[]): Target | undefined {
    const [first, second, third, ...rest] = segments;
    if (first === undefined) return { kind: 'root' };
    if (first === 'principals') {
      if (second === 'anonymous' && third === undefined) return { kind: 'principal', username: null };
      if (second === 'users' && third !== undefined && third !== '' && rest.length === 0) return { kind: 'principal', username: third };
      return undefined;
    }
    if (first !== 'calendars') return undefined;
    if (second === undefined) return { kind: 'home' };
    const collection = collectionOf(second);
    if (collection === undefined || rest.length > 0) return undefined;
    if (third === undefined) return { kind: 'collection', collection };
    return third.endsWith('.ics') && third.length > 4 ? { kind: 'resource', collection, name: third.slice(0, -4) } : undefined;
  }
}
