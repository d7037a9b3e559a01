import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { AppError } from '../../platform/errors.ts';
import type { AllowList } from '../../platform/http/outbound.ts';
import { fetchBytes } from '../../platform/http/outbound.fetch.ts';
import { can } from '../calendar.capabilities.ts';
import { invalidParam, isHttpUrl } from '../common/wire.ts';
import { filenameOfUrl } from './media.names.ts';
import type { MediaService } from './media.service.ts';

export interface SideloadOptions {
  /** Whether URLs of other sites are fetched (`MEDIA_SIDELOAD`); when not, they are recorded as given. */
  readonly enabled: boolean;
  readonly allow: AllowList;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly baseUrl: string;
}

/** What may name an image in a write: the field itself, or an inline venue's or organizer's. */
interface WithImages {
  readonly image?: unknown;
  readonly venue?: unknown;
  readonly organizer?: unknown;
}

const USER_AGENT = 'Almanac (image fetch)';

/**
 * Side-loading, as the reference does it: an `image` given as the URL of
 * another site's image is fetched once, through the outbound guard (no
 * private, loopback or link-local address unless `MEDIA_FETCH_ALLOW_HOSTS`
 * allows it; every redirect checked anew; bounded in time and bytes), made
 * safe and stored by the media library like an upload, and the write then
 * names it by id. It happens before the write's transaction, which never
 * waits on the network; what is refused is a 400 on `image`, as the
 * reference answers every bad image, and stores nothing.
 */
export class ImageSideLoader {
  constructor(
    private readonly media: MediaService,
    private readonly options: SideloadOptions,
  ) {}

  /** `input` with a URL of another site replaced by the id of the image fetched from it; anything else as sent. */
  async prepare(input: unknown, user: AuthUser | null): Promise<unknown> {
    if (!this.options.enabled || typeof input !== 'string') return input;
    const url = input.trim();
    // Our own files are found by their URL where the write is stored; what is not a URL is refused there.
    if (!isHttpUrl(url) || url.startsWith(`${this.options.baseUrl}/media/`)) return input;
    if (user === null || !can(user.role, 'upload_files')) throw invalidParam('image', 'You are not allowed to add images by URL.');
    const { allow, timeoutMs, maxBytes } = this.options;
    // An image carries no secret: http is fetched as https is (old sites serve theirs so), the addresses checked the same.
    const fetched = await fetchBytes(url, { allow, timeoutMs, maxBytes, userAgent: USER_AGENT, anyHttp: true });
    if (!fetched.ok) throw invalidParam('image', `The image could not be fetched: ${fetched.error.replace(/\.$/, '')}.`);
    try {
      const media = await this.media.upload(user, { bytes: fetched.bytes, filename: filenameOfUrl(url), fields: {} });
      return media.id;
    } catch (error) {
      if (error instanceof AppError && error.status === 400)
        throw invalidParam('image', `The URL is not an image we store: ${error.message}`);
      throw error;
    }
  }

  /** An event write (or a venue's, an organizer's) with its images, and those of its inline venue and organizers, prepared. */
  async prepareAll<T extends WithImages>(body: T, user: AuthUser | null): Promise<T> {
    const one = async (value: unknown): Promise<unknown> => {
      if (value === null || typeof value !== 'object' || Array.isArray(value) || !('image' in value)) return value;
      return { ...value, image: await this.prepare(value.image, user) };
    };
    const many = async (value: unknown): Promise<unknown> => (Array.isArray(value) ? Promise.all(value.map(one)) : one(value));
    const prepared: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    if (body.image !== undefined) prepared.image = await this.prepare(body.image, user);
    if (body.venue !== undefined) prepared.venue = await many(body.venue);
    if (body.organizer !== undefined) prepared.organizer = await many(body.organizer);
    return prepared as T;
  }
}
