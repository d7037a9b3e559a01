import type { Language } from '../../config/config.ts';
import { fill, IMPORT_PROBLEMS, type ImportProblem, type ImportProblemCode } from '../common/import-problems.ts';
import { refusalCodeText } from './admin.refusals.i18n.ts';

/**
 * The Italian of what the importers say (common/import-problems.ts has the English), by code; `{name}` stands for
 * the detail of that name, as in the English sentence. What a library or another server says (`{detail}`) stays as
 * it was said.
 */
export const IMPORT_PROBLEMS_IT: Readonly<Record<ImportProblemCode, string>> = {
  // An event of an iCalendar file.
  ical_outside_years: '{property} "{value}" è fuori dagli anni {first}–{last} che il calendario può contenere.',
  ical_status_unknown: 'X-ALMANAC-STATUS "{value}" non è uno stato ammesso ({statuses}).',
  ical_zone_unknown: '{property} "{zone}" non è un fuso orario.',
  ical_no_uid: 'Un VEVENT senza UID non si può importare (non si potrebbe aggiornarlo in seguito).',
  ical_no_dtstart: 'Un VEVENT senza DTSTART non si può importare.',
  ical_ends_before_start: 'L’evento finisce prima di cominciare.',
  ical_geo_out_of_range: 'Le coordinate di GEO sono fuori dai valori possibili.',
  ical_duration_past_years: 'DURATION "{value}" fa finire l’evento dopo l’anno {last}.',
  ical_resource_empty: 'La risorsa non contiene alcun evento.',
  ical_exception_without_series: 'RECURRENCE-ID di una serie che non è nel calendario.',
  ical_exception_without_occurrence: 'RECURRENCE-ID non indica alcuna occorrenza della sua serie.',
  ical_uid_taken_meanwhile: 'Nel frattempo un’altra importazione ha creato questo UID: importa di nuovo il file.',
  // A file that is no iCalendar file (after "riga N: ").
  ical_no_property_name: 'una riga di contenuto deve cominciare con il nome di una proprietà.',
  ical_too_many_parameters: '{name} ha più di {limit} parametri.',
  ical_bad_parameter: 'un parametro non valido in {name}.',
  ical_too_many_parameter_values: '{param} di {name} ha più di {limit} valori.',
  ical_unclosed_quote: 'virgolette non chiuse in {name}.',
  ical_no_content_line: '"{text}" non è una riga di contenuto (NOME[;PARAMETRO=…]:valore).',
  ical_too_many_values: '{name} ha più di {limit} valori.',
  ical_control_character: 'un carattere di controllo in una riga di contenuto.',
  ical_begin_without_name: 'BEGIN non indica alcun componente.',
  ical_begin_not_vcalendar: 'un file deve cominciare con BEGIN:VCALENDAR.',
  ical_component_inside: 'BEGIN:{component} dentro {parent} (riga {parentLine}).',
  ical_too_deep: 'BEGIN:{component} annida i componenti per più di {limit} livelli.',
  ical_end_without_begin: 'END:{component} senza il suo BEGIN.',
  ical_end_mismatch: 'END:{component} dove era atteso END:{due} (riga {dueLine}).',
  ical_outside_vcalendar: '{name} fuori da BEGIN:VCALENDAR … END:VCALENDAR.',
  ical_too_many_properties: '{component} (riga {componentLine}) ha più di {limit} proprietà.',
  ical_never_closed: 'BEGIN:{component} (riga {componentLine}) non viene mai chiuso.',
  ical_no_vcalendar: 'manca BEGIN:VCALENDAR.',
  ical_bad_date: '{name} "{value}" non è un valore {type} valido.',
  ical_bad_duration: 'DURATION "{value}" non è una durata.',
  ical_bad_sequence: 'SEQUENCE deve essere un numero intero.',
  ical_unknown_tzid: 'TZID "{tzid}" non è né un VTIMEZONE del file né un fuso orario conosciuto.',
  ical_unreadable: 'non si riesce a leggere {name}.',
  ical_refused_value: 'valore illeggibile: {detail}',
  ical_vtimezone_without_tzid: 'un VTIMEZONE senza TZID.',
  ical_zone_refused: 'VTIMEZONE "{tzid}" non si può leggere: {detail}',
  ical_zone_changes: '{name} cambia la differenza da UTC più di {limit} volte nel {year}.',
  ical_too_many_zones: 'gli eventi usano più di {limit} fusi orari propri del file (TZID che non sono nomi IANA).',
  ical_zone_without_observance: 'VTIMEZONE "{tzid}" non ha né STANDARD né DAYLIGHT.',
  ical_observance_without: '{name} senza {property}.',
  ical_bad_offset: '{property} "{value}" non è una differenza da UTC (±HHMM).',
  ical_observance_frequency: '{name} si ripete con FREQ={freq}: le regole di un fuso orario si ripetono ogni anno (FREQ=YEARLY).',
  ical_observance_within_day:
    '{name} si ripete più volte al giorno ({part}): le regole di un fuso orario si ripetono ogni anno (FREQ=YEARLY).',
  ical_observance_rule_part: 'RRULE di {name}: {part} non è tra le parti che la regola di un fuso orario accetta ({parts}).',
  ical_observance_rule: 'RRULE di {name} non valida: {detail}',
  ical_observance_no_onset: 'RRULE di {name}: non produce alcun cambio d’ora entro {years} anni.',
  ical_observance_onsets: '{name} elenca più di {limit} cambi d’ora (DTSTART, RDATE, COUNT).',
  // A CSV file that is none of its kind.
  csv_utf16: 'testo UTF-16, non UTF-8: salvalo come "CSV UTF-8"',
  csv_binary: 'un file binario, non testo CSV (un byte NUL al byte {byte})',
  csv_not_utf8: 'non è testo UTF-8 (un byte non valido vicino al byte {byte}): salvalo come "CSV UTF-8"',
  csv_cut_character: 'non è testo UTF-8 (finisce a metà di un carattere): salvalo come "CSV UTF-8"',
  csv_unreadable: 'non si può leggere: {detail}',
  csv_malformed: 'CSV non valido: {detail}',
  csv_no_name_column:
    'nessuna intestazione nota nella riga {line}: manca una colonna "{header}" (associane una con --map "Intestazione={field}")',
  csv_empty: 'un file vuoto, senza intestazione',
  // The command line's settings of a CSV import.
  csv_date_order: '--date-order vale dmy o mdy, non {order}',
  csv_map_pair: '--map vuole coppie "Intestazione=campo" separate da virgole, non "{pair}"',
  csv_map_field: '--map indica campi inesistenti: {fields} (docs/moving-in.md elenca quelli esistenti)',
  // A row of a CSV file.
  csv_not_yes_no: '"{value}" non è né sì né no',
  csv_name_empty: 'il nome è vuoto',
  csv_start_empty: 'la data di inizio è vuota',
  csv_ends_before_start: 'l’evento finisce ({end}) prima di cominciare ({start})',
  csv_not_coordinate: '"{value}" non è una coordinata (da -{limit} a {limit})',
  csv_coordinates_apart: 'latitudine e longitudine vanno indicate insieme',
  csv_no_such_date: '"{value}" non è una data esistente',
  csv_not_date: '"{value}" non è una data: scrivi 2026-12-31, 31/12/2026 o 12/31/2026',
  csv_day_or_month: '"{value}" può essere giorno/mese o mese/giorno: indica --date-order dmy o mdy',
  csv_twelve_hours: '"{value}": nel formato a 12 ore l’ora va da 1 a 12',
  csv_not_time: '"{value}" non è un orario: scrivi 14:30 o 2:30 pm',
  csv_no_such_time: '"{value}" non è un orario valido',
  csv_same_event_id: 'lo stesso id della riga {line}: ogni evento del file ha un id proprio',
  csv_same_venue_id: 'lo stesso id della riga {line}: ogni luogo del file ha un id proprio',
  csv_same_organizer_id: 'lo stesso id della riga {line}: ogni organizzatore del file ha un id proprio',
  csv_same_event: 'lo stesso evento della riga {line} (stesso nome e stesso inizio): aggiungi una colonna id per distinguere le righe',
  csv_same_venue: 'lo stesso luogo della riga {line} (stesso nome): aggiungi una colonna id per distinguere le righe',
  csv_same_organizer: 'lo stesso organizzatore della riga {line} (stesso nome): aggiungi una colonna id per distinguere le righe',
  csv_taken_meanwhile: 'nel frattempo un’altra importazione ha creato questo elemento: importa di nuovo il file',
  // A WordPress export that is none (after "riga N: " when the line is known).
  wxr_rss_feed: 'un feed RSS, non un export di WordPress (manca wp:wxr_version)',
  wxr_doctype: 'XML con una dichiarazione del tipo di documento (DOCTYPE): rifiutato, le sue entità non vengono mai lette',
  wxr_not_well_formed: 'XML non ben formato: {detail}',
  wxr_not_rss: 'non è un export di WordPress: il documento è <{element}>, non <rss>',
  wxr_not_channel: 'non è un export di WordPress: <rss> contiene <{element}>, non <channel>',
  wxr_no_element: 'non è XML: nessun elemento',
  wxr_unreadable: 'non si può leggere: {detail}',
  wxr_no_tec_items:
    'un export di WordPress senza eventi, luoghi o organizzatori di The Events Calendar (tribe_events, tribe_venue, tribe_organizer)',
  wxr_no_uploads_folder: '--uploads {folder}: la cartella non esiste',
  // An image of a WordPress export.
  wxr_image_not_found: 'nessun file {file} nella cartella uploads e nessun indirizzo da cui scaricarlo',
  wxr_image_not_fetched: 'impossibile scaricare {url}: {detail}',
  // The Events Calendar's API that is none, or cannot be read (after "URL: ").
  tec_not_url: 'non è un URL',
  tec_not_http: 'non è un URL http(s)',
  tec_next_elsewhere: 'next_rest_url {next} esce dal sito o torna indietro: non è l’API di The Events Calendar',
  tec_not_object: 'la risposta non è un oggetto JSON',
  tec_unreachable: 'non raggiungibile: {detail}',
  tec_no_answer: 'nessuna risposta',
  tec_refused: 'accesso rifiutato ({status}): controlla --user e --password',
  tec_status: 'risposta con stato {status}: non è l’API di The Events Calendar',
  tec_not_json: 'la risposta è {type}, non JSON: non è l’API di The Events Calendar',
  tec_no_content_type: 'la risposta non dice il tipo di contenuto, non è JSON: non è l’API di The Events Calendar',
  tec_malformed_json: 'la risposta è JSON non valido',
  tec_no_list: 'nessun elenco di {key} nella risposta: non è l’API di The Events Calendar',
  tec_next_not_url: 'next_rest_url non è un URL: non è l’API di The Events Calendar',
  // An item of The Events Calendar's API imported with something to know.
  tec_protected: 'protetto da password sul sito di origine; l’API non dà le password: importato con una nuova, da impostare nell’editor',
};

/**
 * A problem of an import in the page's language: an English page shows the importer's own sentence; an Italian one
 * the Italian of its code with its details, or of the refusal it keeps (admin.refusals.i18n.ts), else the English.
 */
export function problemText(language: Language, problem: ImportProblem): string {
  if (language === 'en') return problem.message;
  if (Object.hasOwn(IMPORT_PROBLEMS, problem.code)) return fill(IMPORT_PROBLEMS_IT[problem.code as ImportProblemCode], problem.params);
  const { param } = problem.params;
  return refusalCodeText(language, problem.code, param === undefined ? undefined : String(param)) ?? problem.message;
}
