import assert from 'node:assert/strict';
import type { Credentials, TestServer } from '../helpers/server.ts';

export const EVENTS = '/calendar/events/v1/events';

let counter = 0;

/** Creates an event through the API (a factory: call it inside the test) and returns its representation. */
export async function makeEvent(server: TestServer, auth: Credentials, fields: Record<string, unknown> = {}): Promise<any> {
  counter += 1;
  const response = await server.request(EVENTS, {
    method: 'POST',
    auth,
    body: { title: `Event ${counter}`, start_date: 'tomorrow 10am', end_date: 'tomorrow 11am', ...fields },
  });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

/** UNIX seconds `days` from now (plus `hours`). */
export function secondsFromNow(days: number, hours = 0): number {
  return Math.floor(Date.now() / 1000) + days * 86_400 + hours * 3600;
}

/** `YYYY-MM-DD` in UTC, `days` from now. */
export function utcDay(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export function ids(list: any): number[] {
  return (list.events as { id: number }[]).map((event) => event.id);
}
