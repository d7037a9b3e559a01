import sanitizeHtml from 'sanitize-html';

/**
 * Content fields (`description`, `excerpt`): stored as sanitized HTML
 * (allowlist, never regexes) and rendered with paragraphs in `<p>` like
 * WordPress's `wpautop`, as the reference answers them.
 */

const CONTENT_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img'],
  allowedAttributes: {
    a: ['href', 'name', 'target', 'rel', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    '*': ['class'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
};

/** Allowlisted HTML: no scripts, no event handlers, no `javascript:` URLs. */
export function sanitizeContent(html: string): string {
  return sanitizeHtml(html, CONTENT_OPTIONS).trim();
}

/** Plain text with every tag removed (titles); entities stay escaped. */
export function sanitizeText(text: string): string {
  return sanitizeHtml(text, { allowedTags: [], allowedAttributes: {} }).trim();
}

/**
 * Plain text of stored content, for JSON-LD and other text-only renderings:
 * what `sanitizeText` would give, without parsing the HTML again on every
 * read. Exact because every write path stores `sanitizeContent` output (the
 * demo loader writes its own fixed, tag-only templates): in it every `<`
 * opens a tag, attribute values carry no `>` (escaped as `&gt;`), text is
 * already entity-escaped, and no tag with text to drop (script, style) is left.
 */
export function textOfSanitized(html: string): string {
  return html.replace(/<[^>]*>/g, '').trim();
}

const BLOCK_START =
  /^<(?:address|article|aside|blockquote|div|dl|figure|footer|form|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|table|ul)\b/i;

/** WordPress-style paragraphs: blank-line-separated blocks in `<p>`, single newlines as `<br />`. */
export function renderParagraphs(html: string): string {
  const text = html.replace(/\r\n?/g, '\n').trim();
  if (text === '') return '';
  return text
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => (BLOCK_START.test(block) ? block : `<p>${block.replace(/\n/g, '<br />\n')}</p>`))
    .join('\n');
}
