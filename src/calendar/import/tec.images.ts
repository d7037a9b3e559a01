import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { AppError } from '../../platform/errors.ts';
import type { ImageSideLoader } from '../media/media.sideload.ts';
import type { Json } from './tec.map.ts';

/**
 * Featured images of imported items, side-loaded into the media library as a write through the API would: each URL
 * once a run. An image that cannot be fetched or stored (gone, too large, not an image the library takes) stays a
 * URL, recorded as one, rather than keeping its item out.
 */
export class ImageStore {
  private readonly stored = new Map<string, unknown>();

  constructor(private readonly loader: ImageSideLoader) {}

  /** The body with its image URL replaced by the stored image's id, when it could be stored. */
  async localize(body: Json, user: AuthUser | null): Promise<Json> {
    const url = body.image;
    if (typeof url !== 'string' || url === '') return body;
    if (!this.stored.has(url)) {
      const image = await this.loader.prepare(url, user).catch((error: unknown) => {
        if (error instanceof AppError && error.status === 400) return url;
        throw error;
      });
      this.stored.set(url, image);
    }
    return { ...body, image: this.stored.get(url) };
  }
}
