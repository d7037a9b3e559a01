/**
 * The vocabulary of the demo calendar: cities, venue and organizer names,
 * category hierarchy, tags and event titles, in English and Italian.
 * Plain data; `demo-events.ts` combines it.
 */

export interface Bilingual {
  readonly en: string;
  readonly it: string;
}

export interface City {
  readonly name: Bilingual;
  readonly country: Bilingual;
  readonly timezone: string;
  readonly lat: number;
  readonly lng: number;
  /** Italian province code, US/AU state; empty elsewhere. */
  readonly province: string;
  readonly zip: string;
  readonly currency: { readonly symbol: string; readonly code: string };
  /** Relative share of the events held there (the calendar is mostly Italian). */
  readonly weight: number;
}

const EUR = { symbol: '€', code: 'EUR' } as const;
const USD = { symbol: '$', code: 'USD' } as const;
const italy = { en: 'Italy', it: 'Italia' } as const;

const italian = (en: string, it: string, province: string, zip: string, lat: number, lng: number): City => ({
  name: { en, it },
  country: italy,
  timezone: 'Europe/Rome',
  lat,
  lng,
  province,
  zip,
  currency: EUR,
  weight: 6,
});

export const CITIES: readonly City[] = [
  italian('Rome', 'Roma', 'RM', '00186', 41.9028, 12.4964),
  italian('Milan', 'Milano', 'MI', '20121', 45.4642, 9.19),
  italian('Florence', 'Firenze', 'FI', '50122', 43.7696, 11.2558),
  italian('Naples', 'Napoli', 'NA', '80132', 40.8518, 14.2681),
  italian('Turin', 'Torino', 'TO', '10121', 45.0703, 7.6869),
  italian('Bologna', 'Bologna', 'BO', '40121', 44.4949, 11.3426),
  italian('Venice', 'Venezia', 'VE', '30124', 45.4408, 12.3155),
  italian('Palermo', 'Palermo', 'PA', '90133', 38.1157, 13.3615),
  italian('Brescia', 'Brescia', 'BS', '25121', 45.5416, 10.2118),
  italian('Verona', 'Verona', 'VR', '37121', 45.4384, 10.9916),
  {
    name: { en: 'London', it: 'Londra' },
    country: { en: 'United Kingdom', it: 'Regno Unito' },
    timezone: 'Europe/London',
    lat: 51.5074,
    lng: -0.1278,
    province: '',
    zip: 'WC2N 5DU',
    currency: { symbol: '£', code: 'GBP' },
    weight: 2,
  },
  {
    name: { en: 'Paris', it: 'Parigi' },
    country: { en: 'France', it: 'Francia' },
    timezone: 'Europe/Paris',
    lat: 48.8566,
    lng: 2.3522,
    province: '',
    zip: '75004',
    currency: EUR,
    weight: 2,
  },
  {
    name: { en: 'Berlin', it: 'Berlino' },
    country: { en: 'Germany', it: 'Germania' },
    timezone: 'Europe/Berlin',
    lat: 52.52,
    lng: 13.405,
    province: '',
    zip: '10117',
    currency: EUR,
    weight: 1,
  },
  {
    name: { en: 'Madrid', it: 'Madrid' },
    country: { en: 'Spain', it: 'Spagna' },
    timezone: 'Europe/Madrid',
    lat: 40.4168,
    lng: -3.7038,
    province: '',
    zip: '28013',
    currency: EUR,
    weight: 1,
  },
  {
    name: { en: 'New York', it: 'New York' },
    country: { en: 'United States', it: 'Stati Uniti' },
    timezone: 'America/New_York',
    lat: 40.7128,
    lng: -74.006,
    province: 'NY',
    zip: '10001',
    currency: USD,
    weight: 2,
  },
  {
    name: { en: 'Chicago', it: 'Chicago' },
    country: { en: 'United States', it: 'Stati Uniti' },
    timezone: 'America/Chicago',
    lat: 41.8781,
    lng: -87.6298,
    province: 'IL',
    zip: '60601',
    currency: USD,
    weight: 1,
  },
  {
    name: { en: 'Los Angeles', it: 'Los Angeles' },
    country: { en: 'United States', it: 'Stati Uniti' },
    timezone: 'America/Los_Angeles',
    lat: 34.0522,
    lng: -118.2437,
    province: 'CA',
    zip: '90012',
    currency: USD,
    weight: 1,
  },
  {
    name: { en: 'Tokyo', it: 'Tokyo' },
    country: { en: 'Japan', it: 'Giappone' },
    timezone: 'Asia/Tokyo',
    lat: 35.6762,
    lng: 139.6503,
    province: '',
    zip: '100-0001',
    currency: { symbol: '¥', code: 'JPY' },
    weight: 1,
  },
  {
    name: { en: 'Sydney', it: 'Sydney' },
    country: { en: 'Australia', it: 'Australia' },
    timezone: 'Australia/Sydney',
    lat: -33.8688,
    lng: 151.2093,
    province: 'NSW',
    zip: '2000',
    currency: { symbol: 'A$', code: 'AUD' },
    weight: 1,
  },
];

/** Venue name patterns; `{n}` is a namesake. */
export const VENUE_KINDS: readonly Bilingual[] = [
  { en: 'Teatro {n}', it: 'Teatro {n}' },
  { en: '{n} Auditorium', it: 'Auditorium {n}' },
  { en: '{n} Gardens', it: 'Giardini {n}' },
  { en: '{n} Civic Library', it: 'Biblioteca civica {n}' },
  { en: '{n} Gallery', it: 'Galleria {n}' },
  { en: '{n} Park', it: 'Parco {n}' },
  { en: '{n} Hall', it: 'Sala {n}' },
  { en: '{n} Cultural Centre', it: 'Centro culturale {n}' },
];

export const NAMESAKES: readonly string[] = [
  'Verdi',
  'Garibaldi',
  'Mazzini',
  'Dante',
  'Galilei',
  'Manzoni',
  'Puccini',
  'Cavour',
  'Leopardi',
  'Vivaldi',
  'Rossini',
  'Petrarca',
  'Marconi',
  'Volta',
  'Montessori',
  'Deledda',
];

export const STREETS: readonly string[] = [
  'Via Roma',
  'Corso Italia',
  'Piazza del Duomo',
  'Via Garibaldi',
  'Via XX Settembre',
  'Corso Vittorio Emanuele II',
  'Via Dante',
  'Piazza della Repubblica',
  'Via Cavour',
  'Lungomare Caracciolo',
  'Via dei Mille',
  'Piazza San Marco',
];

export const ORGANIZER_KINDS: readonly Bilingual[] = [
  { en: '{n} Cultural Association', it: 'Associazione culturale {n}' },
  { en: '{n} Events', it: '{n} Eventi' },
  { en: '{n} Foundation', it: 'Fondazione {n}' },
  { en: '{n} Music Society', it: 'Società musicale {n}' },
  { en: '{n} Tourist Board', it: 'Pro Loco {n}' },
];

export interface CategoryDefinition {
  readonly name: Bilingual;
  readonly children: readonly Bilingual[];
}

export const CATEGORIES: readonly CategoryDefinition[] = [
  {
    name: { en: 'Music', it: 'Musica' },
    children: [
      { en: 'Jazz', it: 'Jazz' },
      { en: 'Classical', it: 'Classica' },
      { en: 'Rock', it: 'Rock' },
      { en: 'Opera', it: 'Lirica' },
    ],
  },
  {
    name: { en: 'Arts and Culture', it: 'Arte e cultura' },
    children: [
      { en: 'Theatre', it: 'Teatro' },
      { en: 'Exhibitions', it: 'Mostre' },
      { en: 'Cinema', it: 'Cinema' },
      { en: 'Dance', it: 'Danza' },
      { en: 'Guided tours', it: 'Visite guidate' },
    ],
  },
  {
    name: { en: 'Food and Wine', it: 'Enogastronomia' },
    children: [
      { en: 'Tastings', it: 'Degustazioni' },
      { en: 'Markets', it: 'Mercati' },
    ],
  },
  {
    name: { en: 'Sport', it: 'Sport' },
    children: [
      { en: 'Running', it: 'Corsa' },
      { en: 'Cycling', it: 'Ciclismo' },
    ],
  },
  { name: { en: 'Family', it: 'Famiglie' }, children: [{ en: 'Kids', it: 'Bambini' }] },
  {
    name: { en: 'Talks', it: 'Incontri' },
    children: [
      { en: 'Conferences', it: 'Convegni' },
      { en: 'Books', it: 'Libri' },
    ],
  },
];

export const TAGS: readonly Bilingual[] = [
  { en: 'Free entry', it: 'Ingresso libero' },
  { en: 'Outdoor', it: "All'aperto" },
  { en: 'Accessible', it: 'Accessibile' },
  { en: 'Family friendly', it: 'Per famiglie' },
  { en: 'In English', it: 'In inglese' },
  { en: 'Booking required', it: 'Prenotazione obbligatoria' },
  { en: 'Live music', it: 'Musica dal vivo' },
  { en: 'Festival', it: 'Festival' },
  { en: 'Summer', it: 'Estate' },
  { en: 'Winter', it: 'Inverno' },
  { en: 'Weekend', it: 'Fine settimana' },
  { en: 'Evening', it: 'Sera' },
  { en: 'Local produce', it: 'Prodotti locali' },
  { en: 'Students', it: 'Studenti' },
  { en: 'Pets welcome', it: 'Animali ammessi' },
];

/** An event kind and the subcategory (English name) it files under. */
export interface EventKind {
  readonly title: Bilingual;
  readonly category: string;
  /** Typical length in hours. */
  readonly hours: number;
}

export const EVENT_KINDS: readonly EventKind[] = [
  { title: { en: 'Jazz night', it: 'Serata jazz' }, category: 'Jazz', hours: 3 },
  { title: { en: 'Chamber music concert', it: 'Concerto di musica da camera' }, category: 'Classical', hours: 2 },
  { title: { en: 'Rock concert', it: 'Concerto rock' }, category: 'Rock', hours: 3 },
  { title: { en: 'Opera evening', it: "Serata all'opera" }, category: 'Opera', hours: 3 },
  { title: { en: 'Theatre performance', it: 'Spettacolo teatrale' }, category: 'Theatre', hours: 2 },
  { title: { en: 'Exhibition opening', it: 'Inaugurazione della mostra' }, category: 'Exhibitions', hours: 2 },
  { title: { en: 'Open-air cinema', it: 'Cinema all’aperto' }, category: 'Cinema', hours: 2 },
  { title: { en: 'Dance workshop', it: 'Laboratorio di danza' }, category: 'Dance', hours: 2 },
  { title: { en: 'Guided tour', it: 'Visita guidata' }, category: 'Guided tours', hours: 2 },
  { title: { en: 'Wine tasting', it: 'Degustazione di vini' }, category: 'Tastings', hours: 2 },
  { title: { en: "Farmers' market", it: 'Mercato contadino' }, category: 'Markets', hours: 5 },
  { title: { en: 'City run', it: 'Corsa cittadina' }, category: 'Running', hours: 3 },
  { title: { en: 'Cycling tour', it: 'Giro in bicicletta' }, category: 'Cycling', hours: 4 },
  { title: { en: "Kids' workshop", it: 'Laboratorio per bambini' }, category: 'Kids', hours: 2 },
  { title: { en: 'Conference', it: 'Convegno' }, category: 'Conferences', hours: 4 },
  { title: { en: 'Book presentation', it: 'Presentazione del libro' }, category: 'Books', hours: 1 },
];

export const THEMES: readonly Bilingual[] = [
  { en: 'Tribute to Chet Baker', it: 'Omaggio a Chet Baker' },
  { en: 'Sounds of the Mediterranean', it: 'Suoni del Mediterraneo' },
  { en: 'Renaissance masters', it: 'Maestri del Rinascimento' },
  { en: 'Autumn harvest', it: "Vendemmia d'autunno" },
  { en: 'Spring edition', it: 'Edizione di primavera' },
  { en: 'Under the stars', it: 'Sotto le stelle' },
  { en: 'Local traditions', it: 'Tradizioni locali' },
  { en: 'New voices', it: 'Nuove voci' },
  { en: 'Baroque and beyond', it: 'Barocco e oltre' },
  { en: 'Street food stories', it: 'Storie di cibo di strada' },
  { en: 'Women in science', it: 'Donne nella scienza' },
  { en: 'The green city', it: 'La città verde' },
  { en: 'A day for families', it: 'Una giornata per le famiglie' },
  { en: 'Around the lake', it: 'Intorno al lago' },
];

export const DESCRIPTIONS: readonly Bilingual[] = [
  {
    en: 'An evening for everyone who loves {kind} in {city}. Doors open half an hour before the start.',
    it: 'Una serata per chi ama {kind} a {city}. Apertura porte mezz’ora prima dell’inizio.',
  },
  {
    en: 'Part of the season programme of {city}: {kind}, with local artists and guests from abroad.',
    it: 'Fa parte della stagione di {city}: {kind}, con artisti locali e ospiti dall’estero.',
  },
  {
    en: 'Places are limited; arrive early. Refreshments are served at the end of {kind}.',
    it: 'I posti sono limitati: si consiglia di arrivare presto. Al termine di {kind} è previsto un rinfresco.',
  },
];
