import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { answerConditionally } from '../../platform/http/conditional-get.ts';
import { AppError } from '../../platform/errors.ts';
import type { Handler } from '../../platform/http/route-handler.ts';
import { WpErrorSchema } from '../common/schemas.ts';
import { parseWpBoolean } from '../common/wire.ts';
import { filenameOfDisposition } from './media.names.ts';
import { ACCEPTED_MIME_TYPES } from './media.process.ts';
import {
  DeletedMediaSchema,
  DeleteMediaQuerySchema,
  ListMediaQuerySchema,
  MediaFieldsSchema,
  MediaParamsSchema,
  MediaSchema,
  UploadQuerySchema,
  type UploadQuery,
} from './media.schemas.ts';
import type { MediaService, Upload } from './media.service.ts';
import { uploadFieldsOf } from './media.upload.ts';

const tags = ['media'];
const ITEM = '/media/:id(^\\d+$)';
const NOT_MODIFIED = { description: 'Not modified: the ETag sent in If-None-Match is current (no body)', type: 'null' };
const notFound = { 404: WpErrorSchema };

export interface MediaRoutesOptions {
  readonly service: MediaService;
  readonly maxBytes: number;
}

/**
 * `/wp/v2/media`, the part of WordPress core's media endpoint clients use
 * (docs/media.md): uploads as a raw body or a multipart form, the list,
 * one image, its texts changed, its deletion.
 */
export async function mediaRoutes(app: FastifyInstance, { service, maxBytes }: MediaRoutesOptions): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  app.decorateReply('itemVersion', null);
  app.addHook('onSend', answerConditionally);
  // A raw upload comes with its own type (image/jpeg, or whatever the client thinks it is: the bytes decide).
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBytes }, (_request, body, done) => done(null, body));
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 10_000, parts: 11 } });

  typed.get('/media', { config: { access: 'public' }, schema: listMediaSchema, handler: listMedia(service) });
  typed.post('/media', {
    config: { access: 'upload_files' },
    bodyLimit: maxBytes,
    schema: uploadMediaSchema,
    handler: uploadMedia(service),
  });
  typed.get(ITEM, { config: { access: 'public' }, schema: getMediaSchema, handler: getMedia(service) });
  typed.post(ITEM, { config: { access: 'upload_files' }, schema: updateMediaSchema, handler: updateMedia(service) });
  typed.delete(ITEM, { config: { access: 'upload_files', errors: [501] }, schema: deleteMediaSchema, handler: deleteMedia(service) });
}

const listMediaSchema = {
  operationId: 'listMedia',
  tags,
  summary: 'The images of the media library, newest first (X-WP-Total, X-WP-TotalPages)',
  querystring: ListMediaQuerySchema,
  response: { 200: Type.Array(MediaSchema), 304: NOT_MODIFIED },
};
function listMedia(service: MediaService): Handler<typeof listMediaSchema> {
  return async (request, reply) => {
    const page = await service.list(request.user, request.query);
    void reply.header('x-wp-total', String(page.total)).header('x-wp-totalpages', String(page.totalPages));
    return page.items;
  };
}

const uploadMediaSchema = {
  operationId: 'uploadMedia',
  tags,
  summary: `Uploads an image (authors and above): ${ACCEPTED_MIME_TYPES.join(', ')}`,
  description:
    'The file as the body, with `Content-Disposition: attachment; filename="…"` (its fields in the query string), or a multipart form with a `file` part (its fields as other parts).',
  consumes: ['multipart/form-data', ...ACCEPTED_MIME_TYPES, 'application/octet-stream'],
  querystring: UploadQuerySchema,
  response: { 201: MediaSchema },
};
function uploadMedia(service: MediaService): Handler<typeof uploadMediaSchema> {
  return async (request, reply) => reply.code(201).send(await service.upload(request.user!, await uploadOf(request, request.query)));
}

/** The file and fields of an upload request, in either of its forms. */
async function uploadOf(request: FastifyRequest, query: UploadQuery): Promise<Upload> {
  if (request.isMultipart()) {
    let file: { bytes: Buffer; filename: string } | undefined;
    const fields: Record<string, string> = {};
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file')
            throw new AppError(400, 'rest_upload_no_data', 'The file must be sent as the form part named file.');
          file = { bytes: await part.toBuffer(), filename: part.filename };
        } else if (typeof part.value === 'string') {
          fields[part.fieldname] = part.value;
        }
      }
    } catch (error) {
      // The parser's own errors (a body that is no form: a missing boundary, a part cut short) carry no status.
      if (error instanceof AppError || (error as { statusCode?: unknown }).statusCode !== undefined) throw error;
      throw new AppError(400, 'rest_upload_no_data', `The multipart form is malformed: ${(error as Error).message.replace(/\.$/, '')}.`);
    }
    if (file === undefined) throw new AppError(400, 'rest_upload_no_data', 'No data supplied.');
    return { ...file, fields: { ...query, ...uploadFieldsOf(fields) } };
  }
  const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (bytes.length === 0) throw new AppError(400, 'rest_upload_no_data', 'No data supplied.');
  const disposition = request.headers['content-disposition'];
  if (disposition === undefined) throw new AppError(400, 'rest_upload_no_content_disposition', 'No Content-Disposition supplied.');
  const filename = filenameOfDisposition(disposition);
  if (filename === undefined) {
    throw new AppError(
      400,
      'rest_upload_invalid_disposition',
      'Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `attachment; filename="image.png"` or similar.',
    );
  }
  return { bytes, filename, fields: query };
}

const getMediaSchema = {
  operationId: 'getMedia',
  tags,
  summary: 'An image of the media library',
  params: MediaParamsSchema,
  response: { 200: MediaSchema, 304: NOT_MODIFIED, ...notFound },
};
function getMedia(service: MediaService): Handler<typeof getMediaSchema> {
  return async (request) => service.get(request.user, request.params.id);
}

const updateMediaSchema = {
  operationId: 'updateMedia',
  tags,
  summary: "Changes an image's title, alternative text or caption (its uploader, or editors and above)",
  params: MediaParamsSchema,
  body: MediaFieldsSchema,
  response: { 200: MediaSchema, ...notFound },
};
function updateMedia(service: MediaService): Handler<typeof updateMediaSchema> {
  return async (request) => service.update(request.user!, request.params.id, request.body);
}

const deleteMediaSchema = {
  operationId: 'deleteMedia',
  tags,
  summary: 'Deletes an image and its files (force=true: images are not trashed); events, venues and organizers that showed it show none',
  params: MediaParamsSchema,
  querystring: DeleteMediaQuerySchema,
  response: { 200: DeletedMediaSchema, ...notFound, 501: WpErrorSchema },
};
function deleteMedia(service: MediaService): Handler<typeof deleteMediaSchema> {
  return async (request) => service.remove(request.user!, request.params.id, parseWpBoolean(request.query.force) === true);
}
