import { createReadStream } from 'node:fs';
import { SaxesParser } from 'saxes';
import { ImportProblemError, type ImportProblemCode, type ProblemParams } from '../common/import-problems.ts';

/**
 * Streamed reading of a WordPress export (WXR: RSS 2.0 with WordPress's `wp:` elements). The text is parsed
 * as it is read and each author, term and item is handed on as soon as it closes, so an export of any size
 * reads in the memory of one item. A document type declaration is refused the moment it is met: its
 * entities are never declared, so nothing is ever expanded or fetched, and a reference to one is an error.
 */

/** A file that is no WordPress export, or XML that is refused, with the line that shows it when there is one. */
export class WxrFileError extends ImportProblemError {
  constructor(
    code: ImportProblemCode,
    params: ProblemParams = {},
    readonly line?: number,
  ) {
    super(code, params, (sentence) => (line === undefined ? sentence : `line ${line}: ${sentence}`));
  }
}

export interface WxrAuthor {
  readonly kind: 'author';
  readonly login: string;
  readonly email: string;
}

/** A category or tag (`wp:category`, `wp:tag`, or `wp:term` of any taxonomy). */
export interface WxrTerm {
  readonly kind: 'term';
  readonly taxonomy: string;
  readonly slug: string;
  readonly name: string;
  /** The parent's slug; empty for none. */
  readonly parent: string;
  readonly description: string;
}

/** A term an item is filed under: `<category domain="…" nicename="slug">Name</category>`. */
export interface WxrItemTerm {
  readonly taxonomy: string;
  readonly slug: string;
  readonly name: string;
}

export interface WxrItem {
  readonly kind: 'item';
  /** The line the item starts on. */
  readonly line: number;
  readonly fields: ReadonlyMap<string, string>;
  readonly terms: readonly WxrItemTerm[];
  /** Each meta key's values, in file order (an event has one `_EventOrganizerID` row per organizer). */
  readonly meta: ReadonlyMap<string, readonly string[]>;
}

/** The channel's own facts, once its first author, term or item is met (WordPress writes them first). */
export interface WxrChannel {
  readonly kind: 'channel';
  readonly wxrVersion: string;
  /** The exported site's address: what item ids are the ids of. */
  readonly site: string;
}

export type WxrRecord = WxrChannel | WxrAuthor | WxrTerm | WxrItem;

const CHANNEL_FIELDS = new Set(['wp:wxr_version', 'wp:base_site_url', 'wp:base_blog_url', 'link']);
const TERM_ELEMENTS = new Set(['wp:category', 'wp:tag', 'wp:term']);

/** Open elements below a record, with the text of the innermost. */
interface Open {
  readonly name: string;
  text: string;
}

class RecordBuilder {
  private readonly fields = new Map<string, string>();
  private readonly terms: WxrItemTerm[] = [];
  private readonly meta = new Map<string, string[]>();
  private metaKey = '';
  private metaValue = '';

  constructor(
    readonly name: string,
    private readonly line: number,
  ) {}

  /** A child element closed, `depth` below the record (1: a direct child). */
  field(name: string, text: string, depth: number, attributes: Readonly<Record<string, string>>): void {
    if (name === 'wp:meta_key' && depth === 2) this.metaKey = text;
    else if (name === 'wp:meta_value' && depth === 2) this.metaValue = text;
    else if (name === 'wp:postmeta' && depth === 1) {
      const values = this.meta.get(this.metaKey);
      if (values === undefined) this.meta.set(this.metaKey, [this.metaValue]);
      else values.push(this.metaValue);
      this.metaKey = '';
      this.metaValue = '';
    } else if (name === 'category' && depth === 1 && attributes.domain !== undefined)
      this.terms.push({ taxonomy: attributes.domain, slug: attributes.nicename ?? '', name: text.trim() });
    else if (depth === 1) this.fields.set(name, text);
  }

  build(): WxrRecord | undefined {
    const get = (...names: string[]) =>
      names
        .map((name) => this.fields.get(name))
        .find((value) => value !== undefined)
        ?.trim() ?? '';
    if (this.name === 'item') return { kind: 'item', line: this.line, fields: this.fields, terms: this.terms, meta: this.meta };
    if (this.name === 'wp:author') return { kind: 'author', login: get('wp:author_login'), email: get('wp:author_email') };
    const taxonomy = this.name === 'wp:category' ? 'category' : this.name === 'wp:tag' ? 'post_tag' : get('wp:term_taxonomy');
    return {
      kind: 'term',
      taxonomy,
      slug: get('wp:category_nicename', 'wp:tag_slug', 'wp:term_slug'),
      name: get('wp:cat_name', 'wp:tag_name', 'wp:term_name'),
      parent: get('wp:category_parent', 'wp:term_parent'),
      description: get('wp:category_description', 'wp:tag_description', 'wp:term_description'),
    };
  }
}

/**
 * The records of the export at `path`, in file order; a `WxrFileError` naming the problem (and its line) for
 * text that is no XML, XML with a document type declaration, or XML that is no WordPress export.
 */
export async function* readWxr(path: string): AsyncGenerator<WxrRecord> {
  const parser = new SaxesParser({ position: true });
  const ready: WxrRecord[] = [];
  const channel = new Map<string, string>();
  let channelSent = false;
  const stack: Open[] = [];
  let record: { builder: RecordBuilder; depth: number } | undefined;
  let rooted = false;
  const attributes: Record<string, string>[] = [];
  const refuse = (code: ImportProblemCode, params: ProblemParams = {}): never => {
    throw new WxrFileError(code, params, parser.line);
  };
  const sendChannel = () => {
    if (channelSent) return;
    channelSent = true;
    const version = channel.get('wp:wxr_version');
    if (version === undefined) refuse('wxr_rss_feed');
    const site = channel.get('wp:base_blog_url') ?? channel.get('wp:base_site_url') ?? channel.get('link') ?? '';
    ready.push({ kind: 'channel', wxrVersion: version ?? '', site: site.trim().replace(/\/+$/, '') });
  };

  parser.on('doctype', () => refuse('wxr_doctype'));
  parser.on('error', (error) => refuse('wxr_not_well_formed', { detail: error.message.replace(/^(?:[^:\s]*:)?\d+:\d+: /, '') }));
  parser.on('opentag', (tag) => {
    rooted = true;
    if (stack.length === 0 && tag.name !== 'rss') refuse('wxr_not_rss', { element: tag.name });
    if (stack.length === 1 && tag.name !== 'channel') refuse('wxr_not_channel', { element: tag.name });
    const inChannel = stack.length === 2;
    if (record === undefined && inChannel && (tag.name === 'item' || tag.name === 'wp:author' || TERM_ELEMENTS.has(tag.name))) {
      sendChannel();
      record = { builder: new RecordBuilder(tag.name, parser.line), depth: stack.length };
    }
    stack.push({ name: tag.name, text: '' });
    attributes.push(tag.attributes as Record<string, string>);
  });
  const addText = (text: string) => {
    const top = stack.at(-1);
    if (top !== undefined && (record !== undefined || stack.length === 3)) top.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const closed = stack.pop() as Open;
    const attrs = attributes.pop() ?? {};
    if (record === undefined) {
      if (stack.length === 2 && CHANNEL_FIELDS.has(closed.name)) channel.set(closed.name, closed.text.trim());
      return;
    }
    if (stack.length === record.depth) {
      const built = record.builder.build();
      if (built !== undefined) ready.push(built);
      record = undefined;
    } else record.builder.field(closed.name, closed.text, stack.length - record.depth, attrs);
  });

  const stream = createReadStream(path, { encoding: 'utf8' });
  try {
    for await (const chunk of stream) {
      parser.write(chunk as string);
      yield* ready.splice(0);
    }
    parser.close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== undefined && !(error instanceof WxrFileError))
      throw new WxrFileError('wxr_unreadable', { detail: `${(error as NodeJS.ErrnoException).code}` });
    throw error;
  } finally {
    stream.destroy();
  }
  if (!rooted) refuse('wxr_no_element');
  sendChannel();
  yield* ready.splice(0);
}
