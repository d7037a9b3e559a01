import { randomBytes } from 'node:crypto';

/** Where the entity-management surface lives. */
export const API = '/apiservice/api/services';
export const ENTITIES = `${API}/entity-management`;
export const ACTIONS = `${API}/actions`;

/** A unique record key for one test. */
export function uniqueKey(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A customer body in readable names, unmapped fields under their codes. */
export function makeCustomer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    key: uniqueKey('C'),
    CompanyName: 'Meccanica Rossi S.p.A.',
    VatNumber: 'IT01234567890',
    CityCodeDescription: 'Brescia',
    Province: 'BS',
    CreditLimit: 10000,
    CDPAG: 'RB30',
    ...overrides,
  };
}

export function makeTodo(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { key: uniqueKey('T'), Title: 'Preparare il preventivo', Status: 'OPEN', Priority: 2, ...overrides };
}

/** An `em_actions` row as the back-end stores it (definitions are written by seeds and operators, not over HTTP). */
export function makeActionRow(code: string, params: unknown, command: unknown, description = 'A test action.') {
  return {
    code,
    description,
    params: typeof params === 'string' ? params : JSON.stringify(params),
    command: typeof command === 'string' ? command : JSON.stringify(command),
    updated_at: new Date().toISOString(),
  };
}
