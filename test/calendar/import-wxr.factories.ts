import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/** WordPress exports (WXR) written as text, item by item, as WordPress's Tools → Export writes them. */

export interface WxrPost {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly status?: string;
  readonly slug?: string;
  readonly content?: string;
  readonly excerpt?: string;
  readonly password?: string;
  readonly date?: string;
  readonly dateGmt?: string;
  readonly creator?: string;
  readonly attachmentUrl?: string;
  /** `<category domain nicename>` of the item: [taxonomy, slug, name]. */
  readonly terms?: readonly (readonly [string, string, string])[];
  readonly meta?: readonly (readonly [string, string | number])[];
}

const cdata = (text: string) => `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;

export function wxrHead(site = 'https://old.example'): string {
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
\t<title>Old site</title>
\t<link>${site}</link>
\t<language>it-IT</language>
\t<wp:wxr_version>1.2</wp:wxr_version>
\t<wp:base_site_url>${site}</wp:base_site_url>
\t<wp:base_blog_url>${site}</wp:base_blog_url>
`;
}

export const wxrTail = '</channel>\n</rss>\n';

export function wxrAuthor(login: string, email: string): string {
  return `\t<wp:author><wp:author_id>1</wp:author_id><wp:author_login>${cdata(login)}</wp:author_login><wp:author_email>${cdata(email)}</wp:author_email><wp:author_display_name>${cdata(login)}</wp:author_display_name></wp:author>\n`;
}

export function wxrTerm(taxonomy: string, slug: string, name: string, parent = '', description = ''): string {
  return `\t<wp:term><wp:term_id>1</wp:term_id><wp:term_taxonomy>${cdata(taxonomy)}</wp:term_taxonomy><wp:term_slug>${cdata(slug)}</wp:term_slug><wp:term_parent>${cdata(parent)}</wp:term_parent><wp:term_name>${cdata(name)}</wp:term_name><wp:term_description>${cdata(description)}</wp:term_description></wp:term>\n`;
}

export function wxrPost(post: WxrPost): string {
  const terms = (post.terms ?? []).map(
    ([domain, slug, name]) => `\t\t<category domain="${domain}" nicename="${slug}">${cdata(name)}</category>\n`,
  );
  const meta = (post.meta ?? []).map(
    ([key, value]) =>
      `\t\t<wp:postmeta>\n\t\t\t<wp:meta_key>${cdata(key)}</wp:meta_key>\n\t\t\t<wp:meta_value>${cdata(String(value))}</wp:meta_value>\n\t\t</wp:postmeta>\n`,
  );
  return `\t<item>
\t\t<title>${cdata(post.title)}</title>
\t\t<link>https://old.example/?p=${post.id}</link>
\t\t<dc:creator>${cdata(post.creator ?? 'admin')}</dc:creator>
\t\t<guid isPermaLink="false">https://old.example/?p=${post.id}</guid>
\t\t<content:encoded>${cdata(post.content ?? '')}</content:encoded>
\t\t<excerpt:encoded>${cdata(post.excerpt ?? '')}</excerpt:encoded>
\t\t<wp:post_id>${post.id}</wp:post_id>
\t\t<wp:post_date>${cdata(post.date ?? '2026-01-10 10:00:00')}</wp:post_date>
\t\t<wp:post_date_gmt>${cdata(post.dateGmt ?? '2026-01-10 09:00:00')}</wp:post_date_gmt>
\t\t<wp:post_name>${cdata(post.slug ?? '')}</wp:post_name>
\t\t<wp:status>${cdata(post.status ?? 'publish')}</wp:status>
\t\t<wp:post_parent>0</wp:post_parent>
\t\t<wp:post_type>${cdata(post.type)}</wp:post_type>
\t\t<wp:post_password>${cdata(post.password ?? '')}</wp:post_password>
${post.attachmentUrl === undefined ? '' : `\t\t<wp:attachment_url>${cdata(post.attachmentUrl)}</wp:attachment_url>\n`}${terms.join('')}${meta.join('')}\t</item>
`;
}

/** An event of The Events Calendar: its dates in its zone and in UTC, and any other meta. */
export function wxrEvent(
  post: Omit<WxrPost, 'type'>,
  dates: { start: string; end: string; startUtc: string; endUtc: string; zone: string },
  meta: readonly (readonly [string, string | number])[] = [],
): string {
  return wxrPost({
    ...post,
    type: 'tribe_events',
    meta: [
      ['_EventStartDate', dates.start],
      ['_EventEndDate', dates.end],
      ['_EventStartDateUTC', dates.startUtc],
      ['_EventEndDateUTC', dates.endUtc],
      ['_EventTimezone', dates.zone],
      ['_EventTimezoneAbbr', 'CEST'],
      ...meta,
    ],
  });
}

/** An export of `events` events at `venues` venues, written a piece at a time (waiting whenever the stream asks to). */
export async function writeLargeExport(at: string, events: number, venues: number): Promise<void> {
  const out = createWriteStream(at);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(wxrHead('https://large.example'));
  await write(wxrTerm('tribe_events_cat', 'musica', 'Musica'));
  for (let venue = 1; venue <= venues; venue += 1)
    await write(wxrPost({ id: venue, type: 'tribe_venue', title: `Sala ${venue}`, meta: [['_VenueCity', 'Padova']] }));
  const description = `<p>${'Una lunga descrizione. '.repeat(40)}</p>`;
  for (let event = 1; event <= events; event += 1) {
    const day = String(1 + (event % 28)).padStart(2, '0');
    await write(
      wxrEvent(
        {
          id: 1000 + event,
          title: `Evento ${event}`,
          slug: `evento-${event}`,
          content: description,
          terms: [['tribe_events_cat', 'musica', 'Musica']],
        },
        {
          start: `2026-05-${day} 20:00:00`,
          end: `2026-05-${day} 22:00:00`,
          startUtc: `2026-05-${day} 18:00:00`,
          endUtc: `2026-05-${day} 20:00:00`,
          zone: 'Europe/Rome',
        },
        [
          ['_EventVenueID', 1 + (event % venues)],
          ['_EventCost', String(event % 30)],
        ],
      ),
    );
  }
  await write(wxrTail);
  out.end();
  await once(out, 'finish');
}
