import type { Store } from '../../platform/db/database.ts';
import { bumpDefinitionsVersion, insertMissingActions } from '../actions/actions.repository.ts';
import type { Command, ParamDeclaration } from '../actions/action.schemas.ts';
import type { ActionTable, EntityTypeTable, FieldTable } from '../entity-management.tables.ts';
import type { FieldType } from '../mapping/catalog.ts';
import { insertMissingEntityTypes } from '../mapping/catalog.repository.ts';

type FieldSeed = readonly [code: string, name: string | null, type: FieldType, description: string];

interface TypeSeed {
  readonly code: string;
  readonly name: string;
  readonly segment: string;
  readonly description: string;
  readonly fields: readonly FieldSeed[];
}

/** The five entity types with Sme.UP-style field codes; a `null` name leaves a field unmapped on purpose. */
export const ENTITY_TYPES: readonly TypeSeed[] = [
  {
    code: 'CNCOL',
    name: 'Collaborators',
    segment: 'collaborators',
    description: 'People of the company: employees and consultants.',
    fields: [
      ['D_I/01', 'FullName', 'string', 'First and last name.'],
      ['E_MAIL', 'Email', 'string', 'Work e-mail address.'],
      ['TELEF', 'Phone', 'string', 'Work phone number.'],
      ['RUOLO', 'Role', 'string', 'Job title.'],
      ['REPAR', 'Department', 'string', 'Department code (e.g. SVIL, AMM, COMM).'],
      ['ATTIV', 'Active', 'boolean', 'Whether the collaborator is currently active.'],
      ['CDCOS', null, 'string', 'Cost centre (unmapped: returned under its code).'],
    ],
  },
  {
    code: 'CNCLI',
    name: 'Customers',
    segment: 'customers',
    description: 'Customer companies.',
    fields: [
      ['RAGSO', 'CompanyName', 'string', 'Registered company name.'],
      ['PARIV', 'VatNumber', 'string', 'Italian VAT number (partita IVA).'],
      ['D_I/57', 'CityCodeDescription', 'string', 'City of the registered office.'],
      ['INDIR', 'Address', 'string', 'Street address.'],
      ['PROVI', 'Province', 'string', 'Province code (e.g. BS, MI).'],
      ['E_MAIL', 'Email', 'string', 'Contact e-mail address.'],
      ['FIDO', 'CreditLimit', 'number', 'Credit limit in euros.'],
      ['CDPAG', null, 'string', 'Payment terms code (unmapped).'],
      ['ZONA', null, 'string', 'Sales zone (unmapped).'],
    ],
  },
  {
    code: 'ARART',
    name: 'Items',
    segment: 'items',
    description: 'Items sold or used: products and services.',
    fields: [
      ['DESCR', 'Description', 'string', 'Item description.'],
      ['UNMIS', 'UnitOfMeasure', 'string', 'Unit of measure (PZ, KG, H, …).'],
      ['PREZZ', 'Price', 'number', 'List price in euros.'],
      ['GIACE', 'StockQuantity', 'number', 'Quantity in stock.'],
      ['TIPAR', 'ItemType', 'string', 'PRODUCT or SERVICE.'],
      ['ATTIV', 'Active', 'boolean', 'Whether the item can be sold.'],
      ['CLMER', null, 'string', 'Merchandise class (unmapped).'],
    ],
  },
  {
    code: 'TACPG',
    name: 'Projects',
    segment: 'projects',
    description: 'Customer projects.',
    fields: [
      ['DESCR', 'Name', 'string', 'Project name.'],
      ['STATO', 'Status', 'string', 'PLANNED, OPEN, ON_HOLD or CLOSED.'],
      ['RESPO', 'Manager', 'string', 'Key of the collaborator who manages it.'],
      ['CLIEN', 'Customer', 'string', 'Key of the customer.'],
      ['DTINI', 'StartDate', 'string', 'Start date (YYYY-MM-DD).'],
      ['DTFIN', 'EndDate', 'string', 'Planned end date (YYYY-MM-DD).'],
      ['BUDGE', 'Budget', 'number', 'Budget in euros.'],
      ['CDCOM', null, 'string', 'Internal order code (unmapped).'],
    ],
  },
  {
    code: 'H3£TDO',
    name: 'Todo',
    segment: 'todo',
    description: 'Things to do, assigned to collaborators, optionally within a project.',
    fields: [
      ['T$TITL', 'Title', 'string', 'What to do.'],
      ['T$STAT', 'Status', 'string', 'OPEN or DONE.'],
      ['T$ASSE', 'Collaborator', 'string', 'Key of the collaborator it is assigned to.'],
      ['T$PROG', 'Project', 'string', 'Key of the project, if any.'],
      ['T$SCAD', 'DueDate', 'string', 'Due date (YYYY-MM-DD).'],
      ['T$PRIO', 'Priority', 'number', '1 (highest) to 5.'],
      ['T$NOTE', null, 'string', 'Free notes (unmapped).'],
    ],
  },
];

interface ActionSeed {
  readonly code: string;
  readonly description: string;
  readonly params: readonly ParamDeclaration[];
  readonly command: Command;
}

/** A few useful actions; their language is in docs/entity-management.md. */
export const ACTIONS: readonly ActionSeed[] = [
  {
    code: 'CUSTOMERS_BY_CITY',
    description: 'The customers of a city, by key.',
    params: [{ name: 'city', type: 'string', required: true, description: 'City, e.g. Brescia.' }],
    command: { steps: [{ op: 'list', entity: 'CNCLI', filter: { 'D_I/57': '{{city}}' }, as: 'customers' }] },
  },
  {
    code: 'TODO_CLOSE',
    description: 'Marks a todo done.',
    params: [{ name: 'key', type: 'string', required: true, description: 'Key of the todo.' }],
    command: { steps: [{ op: 'update', entity: 'H3£TDO', key: '{{key}}', values: { T$STAT: 'DONE' }, as: 'todo' }] },
  },
  {
    code: 'PROJECT_SUMMARY',
    description: 'A project with its open todos.',
    params: [{ name: 'project', type: 'string', required: true, description: 'Key of the project.' }],
    command: {
      steps: [
        { op: 'get', entity: 'TACPG', key: '{{project}}', as: 'project' },
        { op: 'list', entity: 'H3£TDO', filter: { T$PROG: '{{project}}', T$STAT: 'OPEN' }, sort: 'T$PRIO', as: 'open_todos' },
      ],
    },
  },
  {
    code: 'ITEM_REPRICE',
    description: 'Sets the list price of an item.',
    params: [
      { name: 'item', type: 'string', required: true, description: 'Key of the item.' },
      { name: 'price', type: 'number', required: true, description: 'New price in euros.' },
    ],
    command: { steps: [{ op: 'update', entity: 'ARART', key: '{{item}}', values: { PREZZ: '{{price}}' }, as: 'item' }] },
  },
  {
    code: 'PROJECT_KICKOFF',
    description: 'Opens a project and gives its manager a kick-off todo, both or neither.',
    params: [
      { name: 'project', type: 'string', required: true, description: 'Key of the new project.' },
      { name: 'name', type: 'string', required: true, description: 'Project name.' },
      { name: 'manager', type: 'string', required: true, description: 'Key of the managing collaborator.' },
      { name: 'customer', type: 'string', required: false, description: 'Key of the customer.' },
    ],
    command: {
      steps: [
        {
          op: 'create',
          entity: 'TACPG',
          key: '{{project}}',
          values: { DESCR: '{{name}}', STATO: 'OPEN', RESPO: '{{manager}}', CLIEN: '{{customer}}' },
          as: 'project',
        },
        {
          op: 'create',
          entity: 'H3£TDO',
          key: '{{project}}-KICKOFF',
          values: { T$TITL: 'Kick-off meeting: {{name}}', T$STAT: 'OPEN', T$ASSE: '{{manager}}', T$PROG: '{{project}}', T$PRIO: 1 },
          as: 'todo',
        },
      ],
    },
  },
];

function typeRows(): { types: EntityTypeTable[]; fields: FieldTable[] } {
  return {
    types: ENTITY_TYPES.map(({ code, name, segment, description }, position) => ({ code, name, segment, description, position })),
    fields: ENTITY_TYPES.flatMap((type) =>
      type.fields.map(([code, name, fieldType, description], position) => ({
        entity_code: type.code,
        code,
        name,
        type: fieldType,
        description,
        position,
      })),
    ),
  };
}

/**
 * Inserts whatever seeded definition is missing: idempotent, and safe when
 * two processes start together (inserts skip existing keys). A definition
 * an operator changed is left alone.
 */
export async function seedDefinitions(store: Store): Promise<void> {
  const { types, fields } = typeRows();
  const now = new Date().toISOString();
  const actions: ActionTable[] = ACTIONS.map((action) => ({
    code: action.code,
    description: action.description,
    params: JSON.stringify(action.params),
    command: JSON.stringify(action.command),
    updated_at: now,
  }));
  await store.db.transaction().execute(async (trx) => {
    const inserted = (await insertMissingEntityTypes(trx, types, fields)) + (await insertMissingActions(trx, actions));
    if (inserted > 0) await bumpDefinitionsVersion(trx);
  });
}
