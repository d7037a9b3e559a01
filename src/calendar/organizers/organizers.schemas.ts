import Type from 'typebox';
import { GlobalIdProperties, JsonLdSchema, PostWriteProperties, representationHead } from '../linked-posts/linked-posts.schemas.ts';

const OrganizerFieldProperties = {
  ...PostWriteProperties,
  phone: Type.Optional(Type.String({ description: 'Phone' })),
  website: Type.Optional(Type.String({ description: 'Website: empty or an http(s) URL' })),
  email: Type.Optional(Type.String({ description: 'E-mail: empty or a valid address' })),
};

export const CreateOrganizerBodySchema = Type.Object({
  organizer: Type.String({ minLength: 1, description: 'The organizer name' }),
  ...OrganizerFieldProperties,
});

export const UpdateOrganizerBodySchema = Type.Object({
  organizer: Type.Optional(Type.String({ minLength: 1, description: 'The organizer name' })),
  ...OrganizerFieldProperties,
});

/** The organizer representation: falsy fields are absent, as in the reference. */
export const OrganizerSchema = Type.Object({
  ...representationHead('organizer'),
  phone: Type.Optional(Type.String()),
  website: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  json_ld: Type.Optional(JsonLdSchema),
  ...GlobalIdProperties,
});
