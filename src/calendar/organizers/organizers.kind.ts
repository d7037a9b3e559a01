import type { LinkedPostKind, MetaValues } from '../linked-posts/linked-posts.kind.ts';
import { textField, websiteField } from '../linked-posts/linked-posts.fields.ts';
import { invalidParam } from '../common/wire.ts';
import { organizerJsonLd, organizerMetaFields } from './organizers.mapper.ts';
import { organizerIdsLinkedTo, unlinkOrganizerFromEvents } from './organizers.repository.ts';

// An address as mail systems accept it: dot-atom local part, a dotted domain of DNS labels.
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/** `email`: empty or a valid address (deviation 16). */
function emailField(input: Readonly<Record<string, unknown>>, current: unknown): string {
  const value = input.email;
  if (value === undefined) return String(current ?? '');
  const email = value === null ? '' : String(value).trim();
  if (email !== '' && (email.length > 254 || !EMAIL.test(email))) throw invalidParam('email');
  return email;
}

function writeOrganizerMeta(input: Readonly<Record<string, unknown>>, existing: MetaValues): MetaValues {
  return {
    phone: textField(input, 'phone', existing.phone),
    website: websiteField(input, existing.website),
    email: emailField(input, existing.email),
  };
}

export const organizerKind: LinkedPostKind = {
  type: 'organizer',
  table: 'organizers',
  plural: 'organizers',
  nameField: 'organizer',
  searchColumns: ['phone', 'email', 'website'],
  matchColumn: 'email',
  linkedIds: organizerIdsLinkedTo,
  unlinkFromEvents: unlinkOrganizerFromEvents,
  defaultMeta: { phone: '', website: '', email: '' },
  writeMeta: writeOrganizerMeta,
  metaFields: organizerMetaFields,
  alwaysFields: () => ({}),
  jsonLd: organizerJsonLd,
};
