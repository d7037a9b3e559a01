import type { Language } from '../../config/config.ts';
import type { AppError } from '../../platform/errors.ts';
import { wireCodeOf } from '../errors.ts';

/**
 * The Italian words of what the API refuses in an editor form. The API answers in WordPress's English whatever the
 * language, so an Italian page says a refusal by its code and the parameter it names (`code:param`), or by its code
 * alone; an English page shows the API's own message.
 */
export const REFUSALS_IT: Readonly<Record<string, string>> = {
  // Events.
  'rest_invalid_param:title': 'Il titolo non è valido: è troppo lungo?',
  'rest_invalid_param:description': 'La descrizione non è valida: è troppo lunga?',
  'rest_invalid_param:excerpt': 'Il riassunto non è valido: è troppo lungo?',
  'rest_invalid_param:start_date': "Inserisci una data e un'ora di inizio valide.",
  'rest_invalid_param:end_date': "Inserisci una data e un'ora di fine valide, non prima dell'inizio.",
  'rest_invalid_param:all_day': 'Scegli se l’evento dura tutto il giorno.',
  'rest_invalid_param:timezone': 'Fuso orario sconosciuto: scegline uno dall’elenco.',
  'rest_invalid_param:recurrence':
    'La ripetizione non è valida: controlla la regola, i giorni, la fine e le eccezioni (la serie deve restare nei limiti del calendario).',
  'rest_invalid_param:scope': 'La serie non può essere divisa da questa occorrenza.',
  'rest_invalid_param:venue': 'Luogo non valido: scegline uno dall’elenco, oppure scrivi il nome di uno nuovo.',
  'rest_invalid_param:organizer': 'Organizzatore non valido: scegline uno dall’elenco, oppure scrivi il nome di uno nuovo.',
  'rest_invalid_param:categories': 'Categoria sconosciuta: scegli tra quelle elencate.',
  'rest_invalid_param:tags': 'Etichette non valide: scrivi nomi separati da virgole (al massimo cento).',
  'rest_invalid_param:cost': 'Il costo non è valido: è troppo lungo?',
  'rest_invalid_param:website': 'Inserisci un indirizzo web completo, che inizi con http:// o https://.',
  'rest_invalid_param:featured': 'Scegli se l’evento è in evidenza.',
  'rest_invalid_param:image': 'Immagine non valida: scegline una della libreria, oppure caricane una.',
  'rest_invalid_param:status': 'Stato non valido: scegline uno dall’elenco.',
  'rest_invalid_param:date': "Inserisci una data e un'ora di pubblicazione valide.",
  'rest_invalid_param:password': 'La password non è valida: è troppo lunga?',
  'rest_invalid_param:author': 'Autore sconosciuto.',
  'rest_invalid_param:slug': 'Lo slug non è valido: usa lettere, cifre e trattini.',
  // Venues and organizers.
  'rest_invalid_param:address': 'L’indirizzo non è valido: è troppo lungo?',
  'rest_invalid_param:city': 'La città non è valida: è troppo lunga?',
  'rest_invalid_param:stateprovince': 'La provincia non è valida: è troppo lunga?',
  'rest_invalid_param:zip': 'Il CAP non è valido: è troppo lungo?',
  'rest_invalid_param:country': 'Il paese non è valido: è troppo lungo?',
  'rest_invalid_param:phone': 'Il telefono non è valido: è troppo lungo?',
  'rest_invalid_param:email': 'Questo valore non è valido: scrivi un indirizzo e-mail come nome@esempio.it.',
  'rest_invalid_param:show_map': 'Scegli se mostrare la mappa.',
  // Categories and tags.
  'rest_invalid_param:name': 'Scrivi un nome, di testo semplice e di al massimo 200 caratteri.',
  'rest_invalid_param:parent':
    'Categoria superiore non valida: scegline una dall’elenco che non sia questa né una delle sue sottocategorie.',
  'rest_invalid_param:color': 'Inserisci un colore come #1a7f5a, oppure lascia vuoto.',
  rest_taxonomy_not_hierarchical: 'Le etichette non hanno una categoria superiore.',
  term_exists: 'Un altro elemento ha già questo nome, allo stesso livello.',
  duplicate_term_slug: 'Un altro elemento ha già questo slug.',
  // Media.
  'rest_invalid_param:alt_text': 'Il testo alternativo non è valido: è troppo lungo?',
  'rest_invalid_param:caption': 'La didascalia non è valida: è troppo lunga?',
  'rest_invalid_param:post': 'L’evento a cui legare l’immagine non esiste.',
  rest_upload_no_data: 'Scegli un file da caricare.',
  rest_upload_no_content_disposition: 'Il file è arrivato senza nome: scegli di nuovo il file.',
  rest_upload_invalid_disposition: 'Il nome del file non è valido: rinominalo e riprova.',
  rest_upload_invalid_type: 'Questo file non è un’immagine che il calendario accetta (JPEG, PNG, GIF o WebP).',
  rest_upload_too_many_pixels: 'L’immagine ha troppi pixel: riducila e riprova.',
  rest_upload_invalid_image: 'Il file non è un’immagine leggibile: è danneggiato?',
  rest_upload_name_taken: 'Altri file con lo stesso nome stavano arrivando insieme: invia di nuovo.',
  // Webhooks.
  'rest_invalid_param:url':
    'Indirizzo non accettato: deve essere un indirizzo https:// (o http://) completo di un server raggiungibile, non della rete locale.',
  'rest_invalid_param:events': 'Scegli almeno un cambiamento da ricevere.',
  'rest_invalid_param:active': 'Scegli se la sottoscrizione è attiva.',
  // Settings.
  'rest_invalid_param:language': 'Lingua non valida: scegline una dall’elenco.',
  'rest_invalid_param:start_of_week': 'Scegli il primo giorno della settimana dall’elenco.',
  'rest_invalid_param:date_format': 'Il formato della data non è valido.',
  'rest_invalid_param:time_format': 'Il formato dell’ora non è valido.',
  'rest_invalid_param:currency_symbol': 'Il simbolo della valuta non è valido: è troppo lungo?',
  'rest_invalid_param:currency_position': 'Scegli dove va il simbolo della valuta.',
  'rest_invalid_param:site_logo': 'Il logo deve essere un’immagine della libreria.',
};

/** What the API says of a parameter when it says nothing more: the form says it in its own words. */
export const GENERIC_REASON = 'Invalid parameter.';

/** A refusal in the page's words: the Italian of its code (and parameter) on an Italian page; `undefined` when there is none. */
export function refusalText(language: Language, refusal: AppError, param?: string): string | undefined {
  return refusalCodeText(language, wireCodeOf(refusal), param);
}

/** `refusalText` of a refusal known by its wire code (and the parameter it names), as an import's report keeps it. */
export function refusalCodeText(language: Language, code: string, param?: string): string | undefined {
  if (language === 'en') return undefined;
  return (param === undefined ? undefined : REFUSALS_IT[`${code}:${param}`]) ?? REFUSALS_IT[code];
}
