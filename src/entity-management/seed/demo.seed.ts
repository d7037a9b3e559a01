import type { Store } from '../../platform/db/database.ts';
import { AppError } from '../../platform/errors.ts';
import type { EntityRecord, FieldValue } from '../provider/entity-provider.ts';
import { sqlBackend } from '../provider/sql/sql-provider.ts';
import { seedDefinitions } from './definitions.seed.ts';

const FIRST_NAMES = ['Giulia', 'Marco', 'Francesca', 'Luca', 'Chiara', 'Alessandro', 'Sara', 'Davide', 'Elena', 'Matteo'];
const LAST_NAMES = ['Rossi', 'Bianchi', 'Colombo', 'Ferrari', 'Esposito', 'Ricci', 'Marino', 'Greco', 'Bruno', 'Gallo'];
const ROLES = ['Developer', 'Analyst', 'Project manager', 'Consultant', 'Sales manager'];
const DEPARTMENTS = ['SVIL', 'AMM', 'COMM', 'SVIL', 'CONS'];

const CITIES: readonly (readonly [city: string, province: string])[] = [
  ['Brescia', 'BS'],
  ['Milano', 'MI'],
  ['Bergamo', 'BG'],
  ['Verona', 'VR'],
  ['Torino', 'TO'],
  ['Bologna', 'BO'],
  ['Firenze', 'FI'],
  ['Roma', 'RM'],
  ['Napoli', 'NA'],
  ['Padova', 'PD'],
  ['Genova', 'GE'],
  ['Bari', 'BA'],
];
const COMPANY_WORDS = ['Meccanica', 'Tessile', 'Alimentari', 'Logistica', 'Impianti', 'Arredi'];
const COMPANY_FORMS = ['S.p.A.', 'S.r.l.', 'S.n.c.'];
const STREETS = ['Via Roma', 'Via Garibaldi', 'Corso Italia', 'Via Mazzini', 'Viale Europa', 'Via Dante'];

const ITEMS: readonly (readonly [description: string, unit: string, price: number, type: string])[] = [
  ['Bullone M8 zincato', 'PZ', 0.12, 'PRODUCT'],
  ['Dado M8', 'PZ', 0.05, 'PRODUCT'],
  ['Lamiera inox 2 mm', 'KG', 4.8, 'PRODUCT'],
  ['Cuscinetto a sfere 6204', 'PZ', 3.9, 'PRODUCT'],
  ['Motore elettrico 1,5 kW', 'PZ', 245, 'PRODUCT'],
  ['Cinghia trapezoidale A42', 'PZ', 7.5, 'PRODUCT'],
  ['Olio idraulico ISO 46', 'L', 3.2, 'PRODUCT'],
  ['Guarnizione NBR 40 mm', 'PZ', 0.9, 'PRODUCT'],
  ['Pannello di controllo', 'PZ', 1180, 'PRODUCT'],
  ['Sensore di prossimità', 'PZ', 38, 'PRODUCT'],
  ['Consulenza tecnica', 'H', 85, 'SERVICE'],
  ['Installazione in sede', 'H', 65, 'SERVICE'],
  ['Formazione operatori', 'H', 70, 'SERVICE'],
  ['Manutenzione programmata', 'H', 60, 'SERVICE'],
  ['Sviluppo software', 'H', 90, 'SERVICE'],
];

const PROJECTS: readonly (readonly [name: string, status: string])[] = [
  ['Nuovo ERP di stabilimento', 'OPEN'],
  ['Revamping linea 3', 'OPEN'],
  ['Portale clienti', 'PLANNED'],
  ['Magazzino automatico', 'ON_HOLD'],
  ['Migrazione al cloud', 'OPEN'],
  ['Certificazione ISO 9001', 'CLOSED'],
  ['App per i tecnici', 'OPEN'],
  ['Controllo qualità in linea', 'PLANNED'],
];
const TODO_TITLES = [
  'Raccogliere i requisiti',
  'Preparare il preventivo',
  'Riunione di avanzamento',
  'Collaudo in sede',
  'Aggiornare la documentazione',
  'Formazione utenti',
  'Verificare le licenze',
  'Pianificare il go-live',
];

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const record = (key: string, values: Record<string, FieldValue>): EntityRecord => ({ key, values });

function collaborators(): EntityRecord[] {
  return FIRST_NAMES.map((first, i) => {
    const last = LAST_NAMES[i] ?? '';
    return record(`COL${pad(i + 1, 3)}`, {
      'D_I/01': `${first} ${last}`,
      E_MAIL: `${first}.${last}@almanac.example`.toLowerCase(),
      TELEF: `+39 030 555 ${pad(100 + i, 4)}`,
      RUOLO: ROLES[i % ROLES.length] ?? '',
      REPAR: DEPARTMENTS[i % DEPARTMENTS.length] ?? '',
      ATTIV: i !== 7,
      CDCOS: `CC${pad((i % 4) + 1, 2)}`,
    });
  });
}

function customers(): EntityRecord[] {
  return Array.from({ length: 36 }, (_, i) => {
    const [city, province] = CITIES[i % CITIES.length] ?? ['Brescia', 'BS'];
    const name = `${COMPANY_WORDS[i % COMPANY_WORDS.length] ?? ''} ${LAST_NAMES[(i * 3) % LAST_NAMES.length] ?? ''} ${COMPANY_FORMS[i % COMPANY_FORMS.length] ?? ''}`;
    return record(`C${pad(i + 1, 4)}`, {
      RAGSO: name,
      PARIV: `IT${pad(1_000_000 + i * 7919, 11)}`,
      'D_I/57': city,
      INDIR: `${STREETS[i % STREETS.length] ?? ''} ${(i % 90) + 1}`,
      PROVI: province,
      E_MAIL: `info@cliente${i + 1}.example`,
      FIDO: 5_000 * ((i % 8) + 1),
      CDPAG: ['RB30', 'RB60', 'BB30'][i % 3] ?? 'RB30',
      ZONA: ['NORD', 'CENTRO', 'SUD'][i % 3] ?? 'NORD',
    });
  });
}

function items(): EntityRecord[] {
  return ITEMS.map(([description, unit, price, type], i) =>
    record(`ART${pad(i + 1, 4)}`, {
      DESCR: description,
      UNMIS: unit,
      PREZZ: price,
      GIACE: type === 'SERVICE' ? 0 : (i * 137) % 900,
      TIPAR: type,
      ATTIV: true,
      CLMER: type === 'SERVICE' ? 'SRV' : `M${pad((i % 5) + 1, 2)}`,
    }),
  );
}

function projects(): EntityRecord[] {
  return PROJECTS.map(([name, status], i) =>
    record(`PRJ${pad(i + 1, 3)}`, {
      DESCR: name,
      STATO: status,
      RESPO: `COL${pad((i % 10) + 1, 3)}`,
      CLIEN: `C${pad(i * 4 + 1, 4)}`,
      DTINI: `2026-${pad((i % 9) + 1, 2)}-01`,
      DTFIN: `2027-${pad((i % 9) + 3, 2)}-30`,
      BUDGE: 20_000 + i * 12_500,
      CDCOM: `CM26${pad(i + 1, 3)}`,
    }),
  );
}

function todos(): EntityRecord[] {
  return Array.from({ length: 40 }, (_, i) =>
    record(`TDO${pad(i + 1, 4)}`, {
      T$TITL: TODO_TITLES[i % TODO_TITLES.length] ?? '',
      T$STAT: i % 3 === 0 ? 'DONE' : 'OPEN',
      T$ASSE: `COL${pad((i % 10) + 1, 3)}`,
      T$PROG: `PRJ${pad((i % 8) + 1, 3)}`,
      T$SCAD: `2026-${pad((i % 12) + 1, 2)}-${pad((i % 27) + 1, 2)}`,
      T$PRIO: (i % 5) + 1,
      T$NOTE: i % 4 === 0 ? 'Sentire il cliente prima di procedere.' : null,
    }),
  );
}

/** Demo records per entity code. */
const DEMO: ReadonlyArray<readonly [entityCode: string, records: () => EntityRecord[]]> = [
  ['CNCOL', collaborators],
  ['CNCLI', customers],
  ['ARART', items],
  ['TACPG', projects],
  ['H3£TDO', todos],
];

export interface DemoSeedReport {
  readonly created: number;
  readonly existing: number;
}

/**
 * `almanac seed --demo`: a believable data set, through the provider.
 * Records already there stay, including ones another process is
 * seeding at the same moment (its insert wins, ours counts as existing).
 */
export async function seedDemoRecords(store: Store): Promise<DemoSeedReport> {
  await seedDefinitions(store);
  return sqlBackend(store).transaction(async (provider) => {
    let created = 0;
    let existing = 0;
    for (const [entityCode, records] of DEMO) {
      for (const demo of records()) {
        try {
          await provider.write(entityCode, 'create', demo);
          created += 1;
        } catch (error) {
          if (!(error instanceof AppError && error.code === 'KEY_CONFLICT')) throw error;
          existing += 1;
        }
      }
    }
    return { created, existing };
  });
}
