import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { AppError } from '../../platform/errors.ts';
import { getUrl, type AllowList } from '../../platform/http/outbound.ts';
import type { MediaService } from '../media/media.service.ts';
import type { Json } from './tec.map.ts';

/**
 * Featured images of imported items, stored in the media library: each URL fetched once a run through the outbound
 * guard. An image that cannot be fetched or stored (gone, too large, not an image the library takes) stays a URL,
 * as an image URL written through the API does.
 */
export class ImageStore {
  private readonly stored = new Map<string, string | undefined>();

  constructor(
    private readonly media: MediaService,
    private readonly fetching: { readonly allow: AllowList; readonly maxBytes: number; readonly timeoutMs: number },
  ) {}

  /** The body with its image URL replaced by the stored image's id, when it could be stored. */
  async localize(body: Json, user: AuthUser | null): Promise<Json> {
    const url = body.image;
    if (user === null || typeof url !== 'string' || !/^https?:\/\//i.test(url)) return body;
    if (!this.stored.has(url)) this.stored.set(url, await this.store(url, user));
    const id = this.stored.get(url);
    return id === undefined ? body : { ...body, image: id };
  }

  private async store(url: string, user: AuthUser): Promise<string | undefined> {
    const answer = await getUrl(url, { accept: 'image/*' }, { ...this.fetching, userAgent: 'Almanac importer' });
    if (answer.status !== 200 || answer.body === undefined) return undefined;
    let filename: string;
    try {
      filename = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    } catch {
      filename = '';
    }
    try {
      return String((await this.media.upload(user, { bytes: answer.body, filename: filename || 'image', fields: {} })).id);
    } catch (error) {
      if (error instanceof AppError) return undefined;
      throw error;
    }
  }
}
