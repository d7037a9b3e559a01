import type { FastifyRequest } from 'fastify';
import { LANGUAGES, type Language } from '../../config/config.ts';

/** The words of the public pages, one dictionary per language; dates are formatted by Intl in the same language. */
const EN = {
  skip: 'Skip to content',
  views: 'Calendar views',
  month: 'Month',
  week: 'Week',
  day: 'Day',
  list: 'List',
  today: 'Today',
  previous: 'Previous',
  next: 'Next',
  previousMonth: 'Previous month',
  nextMonth: 'Next month',
  previousWeek: 'Previous week',
  nextWeek: 'Next week',
  previousDay: 'Previous day',
  nextDay: 'Next day',
  previousPage: 'Previous page',
  nextPage: 'Next page',
  language: 'Language',
  search: 'Search events',
  searchButton: 'Search',
  filters: 'Filters',
  category: 'Category',
  tag: 'Tag',
  venue: 'Venue',
  organizer: 'Organizer',
  organizers: 'Organizers',
  any: 'Any',
  apply: 'Apply',
  clear: 'Clear filters',
  noEvents: 'No events.',
  upcoming: 'Upcoming events',
  calendarOf: 'The events calendar of',
  past: 'Past events',
  showPast: 'Show past events',
  showUpcoming: 'Show upcoming events',
  eventsIn: 'Events in',
  weekOf: 'Week of',
  monthGrid: 'Events of the month, one week per row',
  monthAgenda: 'Days with events',
  weekGrid: 'Events of the week, one day per column',
  continuesBefore: '(continued from the previous week)',
  continuesAfter: '(continues next week)',
  when: 'When',
  where: 'Where',
  map: 'Map (OpenStreetMap)',
  cost: 'Cost',
  website: 'Website',
  categories: 'Categories',
  tags: 'Tags',
  repeats: 'Repeats',
  nextDates: 'Next dates',
  wholeSeries: 'See the whole series',
  addToCalendar: 'Add to calendar',
  ics: 'iCalendar file (.ics)',
  subscribe: 'Subscribe',
  subscribeApp: 'In your calendar app (webcal)',
  subscribeGoogle: 'Add to Google Calendar',
  subscribeOutlook: 'Add to Outlook',
  allDay: 'All day',
  fromTime: 'from',
  untilTime: 'until',
  protected: 'This event is protected by a password.',
  protectedPost: 'This page is protected by a password.',
  password: 'Password',
  unlock: 'Show',
  wrongPassword: 'Wrong password.',
  page: 'Page',
  of: 'of',
  more: 'more',
  truncated: 'This day has more events than its page can show: the filters narrow them down, and the list view shows them all.',
  notFound: 'Page not found',
  notFoundText: 'There is no page at this address, or it is not public.',
  badRequest: 'This address cannot be read',
  badRequestText: 'A date or a filter in this address is not valid:',
  tooMany: 'Too many attempts',
  tooManyText: 'Too many attempts from your address: please wait and try again.',
  failed: 'Something went wrong',
  failedText: 'The calendar could not answer. Please try again later. Request:',
  backToCalendar: 'Back to the calendar',
  openCalendar: 'Open the calendar',
  upcomingAt: 'Upcoming events',
  contact: 'Contact',
  phone: 'Phone',
  email: 'Email',
};

export type Dictionary = typeof EN;

const IT: Dictionary = {
  skip: 'Vai al contenuto',
  views: 'Viste del calendario',
  month: 'Mese',
  week: 'Settimana',
  day: 'Giorno',
  list: 'Elenco',
  today: 'Oggi',
  previous: 'Precedente',
  next: 'Successivo',
  previousMonth: 'Mese precedente',
  nextMonth: 'Mese successivo',
  previousWeek: 'Settimana precedente',
  nextWeek: 'Settimana successiva',
  previousDay: 'Giorno precedente',
  nextDay: 'Giorno successivo',
  previousPage: 'Pagina precedente',
  nextPage: 'Pagina successiva',
  language: 'Lingua',
  search: 'Cerca eventi',
  searchButton: 'Cerca',
  filters: 'Filtri',
  category: 'Categoria',
  tag: 'Etichetta',
  venue: 'Luogo',
  organizer: 'Organizzatore',
  organizers: 'Organizzatori',
  any: 'Tutti',
  apply: 'Applica',
  clear: 'Togli i filtri',
  noEvents: 'Nessun evento.',
  upcoming: 'Prossimi eventi',
  calendarOf: 'Il calendario degli eventi di',
  past: 'Eventi passati',
  showPast: 'Mostra gli eventi passati',
  showUpcoming: 'Mostra i prossimi eventi',
  eventsIn: 'Eventi di',
  weekOf: 'Settimana del',
  monthGrid: 'Eventi del mese, una settimana per riga',
  monthAgenda: 'Giorni con eventi',
  weekGrid: 'Eventi della settimana, un giorno per colonna',
  continuesBefore: '(continua dalla settimana precedente)',
  continuesAfter: '(continua la settimana successiva)',
  when: 'Quando',
  where: 'Dove',
  map: 'Mappa (OpenStreetMap)',
  cost: 'Costo',
  website: 'Sito web',
  categories: 'Categorie',
  tags: 'Etichette',
  repeats: 'Si ripete',
  nextDates: 'Prossime date',
  wholeSeries: 'Vedi tutta la serie',
  addToCalendar: 'Aggiungi al calendario',
  ics: 'File iCalendar (.ics)',
  subscribe: 'Iscriviti',
  subscribeApp: "Nell'app calendario (webcal)",
  subscribeGoogle: 'Aggiungi a Google Calendar',
  subscribeOutlook: 'Aggiungi a Outlook',
  allDay: 'Tutto il giorno',
  fromTime: 'dalle',
  untilTime: 'fino alle',
  protected: 'Questo evento è protetto da una password.',
  protectedPost: 'Questa pagina è protetta da una password.',
  password: 'Password',
  unlock: 'Mostra',
  wrongPassword: 'Password errata.',
  page: 'Pagina',
  of: 'di',
  more: 'altri',
  truncated:
    'Questo giorno ha più eventi di quanti la sua pagina ne possa mostrare: i filtri li restringono e la vista elenco li mostra tutti.',
  notFound: 'Pagina non trovata',
  notFoundText: 'A questo indirizzo non c’è nessuna pagina, o non è pubblica.',
  badRequest: 'Questo indirizzo non si può leggere',
  badRequestText: 'Una data o un filtro di questo indirizzo non è valido:',
  tooMany: 'Troppi tentativi',
  tooManyText: 'Troppi tentativi dal tuo indirizzo: attendi e riprova.',
  failed: 'Qualcosa non ha funzionato',
  failedText: 'Il calendario non ha potuto rispondere. Riprova più tardi. Richiesta:',
  backToCalendar: 'Torna al calendario',
  openCalendar: 'Apri il calendario',
  upcomingAt: 'Prossimi eventi',
  contact: 'Contatti',
  phone: 'Telefono',
  email: 'Email',
};

export const DICTIONARIES: Readonly<Record<Language, Dictionary>> = { en: EN, it: IT };

/** What a page is shown in: `?lang=` when valid, else the best of Accept-Language, else the site's default; `explicit` when asked by `lang`. */
export interface PageLanguage {
  readonly language: Language;
  readonly explicit: boolean;
}

function isLanguage(value: unknown): value is Language {
  return LANGUAGES.some((language) => language === value);
}

/** The languages of an Accept-Language header we serve, best first (q-values honoured, `q=0` refused). */
function acceptedLanguages(header: string | undefined): Language[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [range = '', ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/i.exec(param)?.[1]).find((value) => value !== undefined);
      return { primary: range.trim().toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.primary)
    .filter(isLanguage);
}

export function pageLanguageOf(request: FastifyRequest, defaultLanguage: Language): PageLanguage {
  const asked = (request.query as { lang?: unknown } | undefined)?.lang;
  if (isLanguage(asked)) return { language: asked, explicit: true };
  return { language: acceptedLanguages(request.headers['accept-language'])[0] ?? defaultLanguage, explicit: false };
}

/** Open Graph's locale of a language. */
export const OG_LOCALE: Readonly<Record<Language, string>> = { en: 'en_US', it: 'it_IT' };
