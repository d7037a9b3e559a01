import type { Credentials, TestServer } from '../../helpers/server.ts';

export const CALENDAR = '/calendar/events/v1';
export const ENTITIES = '/apiservice/api/services/entity-management';

let sequence = 0;
const unique = (prefix: string) => {
  sequence += 1;
  return `${prefix}-${process.pid}-${sequence}`;
};

/** A minimal valid write body per calendar resource (`name` is the title/name field's value). */
export function calendarBody(resource: string, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  switch (resource) {
    case 'events':
      return {
        title: name,
        description: `${name} description`,
        start_date: '2031-03-01 10:00:00',
        end_date: '2031-03-01 12:00:00',
        ...extra,
      };
    case 'venues':
      return { venue: name, description: `${name} description`, address: '1 Main St', ...extra };
    case 'organizers':
      return { organizer: name, description: `${name} description`, ...extra };
    default:
      return { name, description: `${name} description`, ...extra };
  }
}

export interface Created {
  readonly id: number;
  readonly slug: string;
  readonly body: any;
}

/** Creates a calendar item through the API and returns its id and slug; throws unless 201. */
export async function createCalendarItem(
  server: TestServer,
  resource: string,
  auth: Credentials,
  extra: Record<string, unknown> = {},
  name = unique(resource.slice(0, -1)),
): Promise<Created> {
  const response = await server.request(`${CALENDAR}/${resource}`, { method: 'POST', auth, body: calendarBody(resource, name, extra) });
  if (response.status !== 201) throw new Error(`creating a ${resource} item answered ${response.status}: ${response.text.slice(0, 300)}`);
  return { id: response.body.id, slug: response.body.slug, body: response.body };
}

/** Creates an entity-management customer and returns its key; throws unless 201. */
export async function createCustomer(server: TestServer, auth: Credentials, key = unique('C')): Promise<string> {
  const response = await server.request(`${ENTITIES}/customers`, { method: 'POST', auth, body: { key, CompanyName: `${key} S.p.A.` } });
  if (response.status !== 201) throw new Error(`creating a customer answered ${response.status}: ${response.text.slice(0, 300)}`);
  return key;
}
