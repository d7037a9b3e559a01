import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { loadSharp } from '../media/media.sharp.ts';
import type { MediaService } from '../media/media.service.ts';
import { EVENT_KINDS } from './demo-data.ts';

/** Kinds of event that get a poster: the first few, so a handful of images serve every demo calendar. */
export const POSTER_KINDS = 6;

const WIDTH = 1200;
const HEIGHT = 800;
const COLOURS = ['#8e2a3b', '#21506b', '#7a4e12', '#3c2a6e', '#1f5e3a', '#6b2a5e'];
const SEARCH = 'Demo poster';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A poster: the kind's title in white on its colour, drawn as SVG and encoded as JPEG. */
async function poster(title: string, colour: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
<rect width="100%" height="100%" fill="${colour}"/>
<circle cx="${WIDTH * 0.82}" cy="${HEIGHT * 0.22}" r="${HEIGHT * 0.36}" fill="#ffffff" fill-opacity="0.12"/>
<text x="80" y="${HEIGHT - 120}" font-family="DejaVu Sans, sans-serif" font-size="72" font-weight="bold" fill="#ffffff">${escapeXml(title)}</text>
<text x="84" y="${HEIGHT - 60}" font-family="DejaVu Sans, sans-serif" font-size="36" fill="#ffffff" fill-opacity="0.8">Almanac</text>
</svg>`;
  const sharp = await loadSharp();
  return sharp(Buffer.from(svg)).jpeg({ quality: 82 }).toBuffer();
}

/**
 * The demo posters' ids, one per kind in `POSTER_KINDS` order: those a previous run stored (found by title), else
 * drawn and uploaded through the media library by the administrator `authorId`, sized and stored as any upload.
 */
export async function ensureDemoPosters(media: MediaService, authorId: number): Promise<number[]> {
  const author: AuthUser = { id: authorId, username: '', displayName: '', role: 'administrator' };
  const kinds = EVENT_KINDS.slice(0, POSTER_KINDS);
  const titles = kinds.map((kind) => `${SEARCH}: ${kind.title.en}`);
  const { items } = await media.list(author, { search: SEARCH, per_page: 100 });
  const byTitle = new Map(items.map((item) => [item.title.rendered, item.id]));
  const ids: number[] = [];
  for (const [index, kind] of kinds.entries()) {
    const found = byTitle.get(titles[index]!);
    if (found !== undefined) {
      ids.push(found);
      continue;
    }
    const bytes = await poster(kind.title.en, COLOURS[index % COLOURS.length]!);
    const uploaded = await media.upload(author, {
      bytes,
      filename: `demo-poster-${index + 1}.jpg`,
      fields: { title: titles[index], alt_text: `Poster: ${kind.title.en}` },
    });
    ids.push(uploaded.id);
  }
  return ids;
}
