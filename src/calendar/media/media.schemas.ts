import Type, { type Static } from 'typebox';
import { ListSchema, MAX_ID, SearchSchema, TextSchema, WpBooleanSchema } from '../common/wire.ts';

/** `/wp/v2/media` as WordPress core answers it: the arguments clients send and the attachment they read. */

export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 100;
const MAX_PAGE = 1_000_000;

const Id = Type.Integer({ minimum: 1, maximum: MAX_ID });
export const MediaParamsSchema = Type.Object({ id: Id });

const TitleSchema = TextSchema('The title of the image (by default its file name, without the extension)', { maxLength: 500 });
const AltTextSchema = TextSchema('Alternative text, read aloud in place of the image', { maxLength: 1000 });
const CaptionSchema = TextSchema('The caption shown with the image', { maxLength: 5000 });
/** WordPress sends `title` and `caption` as strings or, read back and sent again, as `{raw}` / `{rendered}` objects. */
const Textual = (schema: ReturnType<typeof TextSchema>, description: string) =>
  Type.Union([schema, Type.Object({ raw: Type.Optional(schema), rendered: Type.Optional(schema) })], { description });

export const MediaFieldsSchema = Type.Object({
  title: Type.Optional(Textual(TitleSchema, 'The title of the image (by default its file name, without the extension)')),
  alt_text: Type.Optional(AltTextSchema),
  caption: Type.Optional(Textual(CaptionSchema, 'The caption shown with the image')),
});
export type MediaFields = Static<typeof MediaFieldsSchema>;

/** An upload's fields, from the query string (raw uploads) or the form's other parts (multipart). */
export const UploadQuerySchema = Type.Object({
  ...MediaFieldsSchema.properties,
  post: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID, description: 'The event, venue or organizer the image is uploaded to' })),
});
export type UploadQuery = Static<typeof UploadQuerySchema>;

export const ListMediaQuerySchema = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'The page of the list' })),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE, description: 'Images per page (1 to 100)' }),
  ),
  search: Type.Optional(SearchSchema('Images whose title, caption, alternative text or slug contain it')),
  media_type: Type.Optional(
    Type.Enum(['image', 'video', 'text', 'application', 'audio'], { description: 'Only images exist here: any other type lists none' }),
  ),
  mime_type: Type.Optional(TextSchema('Only images of this MIME type (image/jpeg, image/png, image/gif, image/webp, image/avif)')),
  author: Type.Optional(ListSchema('Only images uploaded by these user ids')),
  parent: Type.Optional(ListSchema('Only images uploaded to these post ids (0: to none)')),
});
export type ListMediaQuery = Static<typeof ListMediaQuerySchema>;

export const DeleteMediaQuerySchema = Type.Object({
  force: Type.Optional(WpBooleanSchema('Must be true: images are not trashed, they are deleted')),
});

const Rendered = (description: string) => Type.Object({ rendered: Type.String() }, { description });

const SizeSchema = Type.Object({
  file: Type.String({ description: 'The file name of this size' }),
  width: Type.Integer(),
  height: Type.Integer(),
  filesize: Type.Integer({ description: 'Bytes' }),
  mime_type: Type.String(),
  source_url: Type.String({ description: 'Where the file is served' }),
});

export const MediaSchema = Type.Object(
  {
    id: Type.Integer(),
    date: Type.String({ description: 'When it was uploaded, in the site time zone' }),
    date_gmt: Type.String({ description: 'When it was uploaded, in UTC' }),
    slug: Type.String(),
    status: Type.Literal('inherit'),
    type: Type.Literal('attachment'),
    link: Type.String({ description: 'The image file' }),
    title: Rendered('The title'),
    author: Type.Integer({ description: 'The id of the user who uploaded it (0 once that user is removed)' }),
    alt_text: Type.String(),
    caption: Rendered('The caption, as HTML'),
    media_type: Type.Literal('image'),
    mime_type: Type.String(),
    media_details: Type.Object({
      width: Type.Integer(),
      height: Type.Integer(),
      file: Type.String({ description: 'The full size file, under /media/' }),
      filesize: Type.Integer({ description: 'Bytes' }),
      sizes: Type.Record(Type.String(), SizeSchema, {
        description: 'thumbnail (150×150, cropped), medium (300), medium_large (768 wide), large (1024) when the image is larger, and full',
      }),
      image_meta: Type.Object({}, { description: 'Always empty: the metadata of uploads is removed' }),
    }),
    post: Type.Union([Type.Integer(), Type.Null()], { description: 'The post it was uploaded to' }),
    source_url: Type.String({ description: 'The full size file' }),
  },
  { description: 'An image of the media library, as WordPress represents an attachment' },
);
export type Media = Static<typeof MediaSchema>;

export const DeletedMediaSchema = Type.Object({ deleted: Type.Literal(true), previous: MediaSchema });
