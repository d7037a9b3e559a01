import Type from 'typebox';
import { LANGUAGES } from '../../config/config.ts';

/** `translation_language`, accepted by every route of the namespace. */
export const TranslationLanguageSchema = Type.Enum([...LANGUAGES], {
  type: 'string',
  description: 'Content language of the response (and of written content on writes)',
});

export const LanguageQuerySchema = Type.Object({
  translation_language: Type.Optional(TranslationLanguageSchema),
});

/** The WordPress REST error body. */
export const WpErrorSchema = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    data: Type.Object({ status: Type.Integer() }, { additionalProperties: true }),
  },
  { $id: 'WpError' },
);
