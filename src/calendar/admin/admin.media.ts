import Type, { type Static } from 'typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, PlatformErrors } from '../../platform/errors.ts';
import { MediaFieldsSchema, type Media } from '../media/media.schemas.ts';
import { mayChangeUpload } from '../media/media.service.ts';
import { uploadFieldsOf } from '../media/media.upload.ts';
import type { AdminContext } from './admin.context.ts';
import { plainText } from '../pages/pages.present.ts';
import * as forms from './admin.forms.ts';
import type { AdminDictionary } from './admin.i18n.ts';

const config = { access: 'upload_files' } as const;
const PER_PAGE = 20;
const ListQuery = Type.Object({ ...forms.FormQuery.properties, page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) });
/** An upload form: its token, the file (bytes and name, as the editor's multipart parsing leaves it) and the image's texts. */
const UploadBody = Type.Object({
  csrf: Type.String({ maxLength: 200 }),
  file: Type.Optional(Type.Unsafe<{ bytes: Buffer; filename: string }>({ type: 'object' })),
  title: Type.Optional(Type.String()),
  alt_text: Type.Optional(Type.String()),
});

/** `/admin/media/` (authors and above, as uploads in the API): the library with thumbnails, uploads, texts, deletion. */
export async function mediaScreenRoutes(app: FastifyInstance, { context }: { context: AdminContext }): Promise<void> {
  const typing = { optional: ['title'] };
  app.get('/admin/media', { config, schema: { hide: true, querystring: ListQuery }, handler: listMedia(context) });
  app.get('/admin/media/new', { config, schema: { hide: true }, handler: newMedia(context) });
  app.post('/admin/media/new', { config, schema: { hide: true, body: UploadBody }, handler: uploadMedia(context) });
  const edit = '/admin/media/:id/edit';
  app.get(edit, { config, schema: { hide: true, params: forms.IdParams, querystring: forms.FormQuery }, handler: editMedia(context) });
  app.post(edit, { ...forms.formRoute(config.access, typing, MediaFieldsSchema, forms.IdParams), handler: updateMedia(context) });
  app.post('/admin/media/:id/delete', {
    config,
    schema: { hide: true, params: forms.IdParams, body: forms.CsrfOnly },
    handler: deleteMedia(context),
  });
}

const uploadFields = (t: AdminDictionary): forms.Field[] => [
  { name: 'file', label: t.media.file, type: 'file', required: true, hint: t.media.fileHint },
  { name: 'title', label: t.media.title },
  { name: 'alt_text', label: t.media.altText, hint: t.media.altHint },
];
const textFields = (t: AdminDictionary): forms.Field[] => uploadFields(t).slice(1);

const thumbnailOf = (media: Media) => media.media_details.sizes.thumbnail?.source_url ?? media.source_url;

function listMedia(context: AdminContext) {
  return async (request: FastifyRequest<{ Querystring: Static<typeof ListQuery> }>, reply: FastifyReply) => {
    const page = context.page(request);
    const { t } = page;
    const number = request.query.page ?? 1;
    const { items, total, totalPages } = await context.services.media.list(request.user, { page: number, per_page: PER_PAGE });
    const base = `${context.config.basePath}/admin/media`;
    return forms.sendList(context, request, reply, {
      heading: t.media.heading,
      add: { href: `${base}/new`, label: t.media.upload },
      columns: [t.media.title, t.media.altText, t.media.size],
      rows: items.map((media) => ({
        ...(mayChangeUpload(page.user, media.author, 'edit_others') ? { href: `${base}/${media.id}/edit` } : {}),
        image: { src: thumbnailOf(media) },
        cells: [plainText(media.title.rendered), media.alt_text, `${media.media_details.width}×${media.media_details.height}`],
      })),
      total,
      notice: forms.noticeOf(page, request.query),
      previous: number > 1 ? `${base}/?page=${number - 1}` : undefined,
      next: number < totalPages ? `${base}/?page=${number + 1}` : undefined,
      page: number,
      pages: totalPages,
    });
  };
}

function sendUpload(context: AdminContext, request: FastifyRequest, reply: FastifyReply, values: forms.Values, errors?: forms.FieldErrors) {
  const { t } = context.page(request);
  const base = `${context.config.basePath}/admin/media`;
  return forms.sendForm(context, request, reply, {
    heading: t.media.upload,
    action: `${base}/new`,
    multipart: true,
    fields: uploadFields(t),
    values,
    errors,
    submit: t.media.upload,
    back: { href: `${base}/`, label: t.form.back },
  });
}

function newMedia(context: AdminContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => sendUpload(context, request, reply, {});
}

/** An upload through the media service, its texts held to the API's upload rules; a refusal names the file or the text. */
function uploadMedia(context: AdminContext) {
  return async (request: FastifyRequest<{ Body: Static<typeof UploadBody> }>, reply: FastifyReply) => {
    const page = context.page(request);
    const user = request.user;
    if (user === null) throw PlatformErrors.forbidden(false);
    const { file, title, alt_text } = request.body;
    const values = { title: title ?? '', alt_text: alt_text ?? '' };
    const texts = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
    const errors =
      file === undefined || file.bytes.length === 0
        ? { file: page.t.form.required }
        : await forms.attempt(page, async () => {
            try {
              await context.services.media.upload(user, { ...file, fields: uploadFieldsOf(texts) });
            } catch (error) {
              // What the service refuses of the file itself (its type, its size, its pixels) is about the file.
              if (error instanceof AppError && error.status < 500 && forms.fieldErrorsOf(error, page) === undefined) {
                throw new AppError(400, error.code, error.message, { params: { file: error.message } });
              }
              throw error;
            }
          });
    if (errors !== undefined) return sendUpload(context, request, reply, values, errors);
    return reply.redirect(`${context.config.basePath}/admin/media/?saved=1`, 303);
  };
}

async function sendMediaForm(context: AdminContext, request: FastifyRequest, reply: FastifyReply, id: number, form: forms.EditForm) {
  const { t } = context.page(request);
  const media = await context.services.media.get(request.user, id);
  // Someone else's image is seen in the list, not changed: its form would only be refused.
  if (!mayChangeUpload(request.user, media.author, 'edit_others')) throw PlatformErrors.forbidden(request.user !== null);
  const base = `${context.config.basePath}/admin/media`;
  return forms.sendForm(context, request, reply, {
    heading: t.media.edit,
    action: `${base}/${id}/edit`,
    image: { src: thumbnailOf(media), alt: media.alt_text, href: media.source_url },
    fields: textFields(t),
    values: form.values ?? { title: plainText(media.title.rendered), alt_text: media.alt_text },
    errors: form.errors,
    notice: form.notice,
    submit: t.form.save,
    buttons: [{ action: `${base}/${id}/delete`, label: t.form.deleteForGood }],
    back: { href: `${base}/`, label: t.form.back },
  });
}

function editMedia(context: AdminContext) {
  return async (request: forms.ItemPageRequest, reply: FastifyReply) =>
    sendMediaForm(context, request, reply, request.params.id, { notice: forms.noticeOf(context.page(request), request.query) });
}

function updateMedia(context: AdminContext) {
  return async (request: FastifyRequest<{ Params: Static<typeof forms.IdParams> }>, reply: FastifyReply) => {
    const { id } = request.params;
    const page = context.page(request);
    const user = request.user;
    if (user === null) throw PlatformErrors.forbidden(false);
    const errors =
      forms.validationErrorsOf(request, page) ??
      (await forms.attempt(page, () => context.services.media.update(user, id, forms.inputOf(request.body))));
    if (errors !== undefined) return sendMediaForm(context, request, reply, id, { values: forms.typedValues(request), errors });
    return reply.redirect(`${context.config.basePath}/admin/media/${id}/edit?saved=1`, 303);
  };
}

function deleteMedia(context: AdminContext) {
  return async (request: FastifyRequest<{ Params: Static<typeof forms.IdParams> }>, reply: FastifyReply) => {
    const user = request.user;
    if (user === null) throw PlatformErrors.forbidden(false);
    await context.services.media.remove(user, request.params.id, true);
    return reply.redirect(`${context.config.basePath}/admin/media/?deleted=1`, 303);
  };
}
