/**
 * Plain text of the calendar's rendered HTML, for iCalendar TEXT values
 * (SUMMARY, DESCRIPTION, LOCATION, CATEGORIES): calendar apps show them
 * as typed, so tags go, entities are decoded, and the structure the HTML
 * gave survives as line breaks. The input is always sanitized HTML
 * (allowlisted tags, attribute values without `>`), so a tag is `<…>`.
 */

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '\u2013',
  mdash: '\u2014',
  hellip: '\u2026',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  euro: '\u20ac',
  copy: '\u00a9',
};

/** `&amp;`, `&#8217;`, `&#x2019;` and the common named entities; anything else stays as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const BLOCK_TAG =
  /<\/?(?:p|div|h[1-6]|blockquote|pre|ul|ol|li|dl|dt|dd|table|tr|section|article|header|footer|figure|address|hr)\b[^>]*>/gi;
// Text with no tag, entity, carriage return or mark of ours is one line as it stands (most venue and term fields).
const PLAIN = /^[^<&\r\uE001\uE002]*$/;

/** One line of text: runs of spaces collapsed, as HTML shows them. */
const oneLine = (line: string) =>
  line
    .replace(/[ \n\f\v]+/g, ' ')
    .replace(/\t+/g, '\t')
    .trim();

/**
 * Text of rendered HTML: a blank line between paragraphs and other blocks,
 * a line break for `<br>`, a line per list item (`- `), cells separated
 * by tabs; runs of spaces collapsed, entities decoded.
 */
export function textOfHtml(html: string): string {
  if (PLAIN.test(html)) return oneLine(html);
  const marked = html
    .replace(/\r\n?/g, '\n')
    .replace(/<br\s*\/?>/gi, '\uE001')
    .replace(/<li\b[^>]*>/gi, '\uE002- ')
    .replace(/<\/?(?:td|th)\b[^>]*>/gi, '\t')
    .replace(BLOCK_TAG, '\uE002')
    .replace(/<[^>]*>/g, '');
  const blocks = marked
    .split(/\uE002+/)
    .map((block) =>
      block
        .split('\uE001')
        .map((line) => decodeEntities(oneLine(line)).trim())
        .join('\n')
        .trim(),
    )
    .filter((block) => block !== '');
  // List items follow each other on their own lines; other blocks are paragraphs.
  return blocks
    .map((block, index) => {
      if (index === 0) return block;
      const item = (text: string | undefined) => text?.startsWith('- ') === true;
      return `${item(block) && item(blocks[index - 1]) ? '\n' : '\n\n'}${block}`;
    })
    .join('');
}
