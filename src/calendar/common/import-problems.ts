/**
 * What the importers (iCalendar, CSV, WordPress export, The Events Calendar's API) say of what they cannot import:
 * each problem has a stable code, the details it names (`params`: lines, values, names) and its English sentence,
 * the `message` the command line prints and the reports carry. The editor's import page says the code in its own
 * language (admin.import.i18n.ts). A refusal of the calendar's services keeps the service's code instead
 * (import-transactions.ts, `refusalProblem`).
 */

/** Each code's English sentence; `{name}` stands for the detail of that name. */
export const IMPORT_PROBLEMS = {
  // An event of an iCalendar file.
  ical_outside_years: '{property} "{value}" is outside the years {first}–{last} the calendar holds.',
  ical_status_unknown: 'X-ALMANAC-STATUS "{value}" is none of {statuses}.',
  ical_zone_unknown: '{property} "{zone}" is no time zone.',
  ical_no_uid: 'A VEVENT without UID cannot be imported (it could not be updated later).',
  ical_no_dtstart: 'A VEVENT without DTSTART.',
  ical_ends_before_start: 'The event ends before it starts.',
  ical_geo_out_of_range: 'GEO out of range.',
  ical_duration_past_years: 'DURATION "{value}" ends the event after the year {last}.',
  ical_resource_empty: 'The resource holds no event.',
  ical_exception_without_series: 'RECURRENCE-ID of a series that is not in the calendar.',
  ical_exception_without_occurrence: 'RECURRENCE-ID names no occurrence of its series.',
  ical_uid_taken_meanwhile: 'Another import created this UID meanwhile: import the file again.',
  // A file that is no iCalendar file (after "line N: ").
  ical_no_property_name: 'a content line starts with a property name.',
  ical_too_many_parameters: '{name} has more than {limit} parameters.',
  ical_bad_parameter: 'a bad parameter in {name}.',
  ical_too_many_parameter_values: '{param} of {name} has more than {limit} values.',
  ical_unclosed_quote: 'an unclosed quote in {name}.',
  ical_no_content_line: '"{text}" is no content line (NAME[;PARAM=…]:value).',
  ical_too_many_values: '{name} has more than {limit} values.',
  ical_control_character: 'a control character in a content line.',
  ical_begin_without_name: 'BEGIN names no component.',
  ical_begin_not_vcalendar: 'a file starts with BEGIN:VCALENDAR.',
  ical_component_inside: 'BEGIN:{component} inside {parent} (line {parentLine}).',
  ical_too_deep: 'BEGIN:{component} nests components more than {limit} deep.',
  ical_end_without_begin: 'END:{component} without its BEGIN.',
  ical_end_mismatch: 'END:{component} where END:{due} (line {dueLine}) was due.',
  ical_outside_vcalendar: '{name} outside BEGIN:VCALENDAR … END:VCALENDAR.',
  ical_too_many_properties: '{component} (line {componentLine}) has more than {limit} properties.',
  ical_never_closed: 'BEGIN:{component} (line {componentLine}) is never closed.',
  ical_no_vcalendar: 'no BEGIN:VCALENDAR.',
  ical_bad_date: '{name} "{value}" is no {type}.',
  ical_bad_duration: 'DURATION "{value}" is no duration.',
  ical_bad_sequence: 'SEQUENCE is a whole number.',
  ical_unknown_tzid: 'TZID "{tzid}" is neither a VTIMEZONE of the file nor a known time zone.',
  ical_unreadable: '{name} cannot be read.',
  ical_refused_value: '{detail}',
  ical_vtimezone_without_tzid: 'a VTIMEZONE without TZID.',
  ical_zone_refused: 'VTIMEZONE "{tzid}": {detail}',
  ical_zone_changes: '{name} changes the offset more than {limit} times in {year}.',
  ical_too_many_zones: 'the events use more than {limit} time zones of its own (TZIDs that are not IANA names).',
  ical_zone_without_observance: 'VTIMEZONE "{tzid}" has no STANDARD or DAYLIGHT.',
  ical_observance_without: '{name} without {property}.',
  ical_bad_offset: '{property} "{value}" is no UTC offset (±HHMM).',
  ical_observance_frequency: "{name} recurs FREQ={freq}: a time zone's observances recur yearly (FREQ=YEARLY).",
  ical_observance_within_day: "{name} recurs within a day ({part}): a time zone's observances recur yearly (FREQ=YEARLY).",
  ical_observance_rule_part: "RRULE of {name}: {part} is not a part a time zone's rule takes ({parts}).",
  ical_observance_rule: 'RRULE of {name}: {detail}',
  ical_observance_no_onset: 'RRULE of {name}: it gives no onset within {years} years.',
  ical_observance_onsets: '{name} lists more than {limit} onsets (DTSTART, RDATE, COUNT).',
  // A CSV file that is none of its kind.
  csv_utf16: 'UTF-16 text, not UTF-8: save it as "CSV UTF-8"',
  csv_binary: 'a binary file, not CSV text (a NUL byte at byte {byte})',
  csv_not_utf8: 'not UTF-8 text (an invalid byte near byte {byte}): save it as "CSV UTF-8"',
  csv_cut_character: 'not UTF-8 text (it ends within a character): save it as "CSV UTF-8"',
  csv_unreadable: 'cannot read it: {detail}',
  csv_malformed: 'malformed CSV: {detail}',
  csv_no_name_column: 'no known header in line {line}: no "{header}" column (map one with --map "Header={field}")',
  csv_empty: 'an empty file, no header',
  // The command line's settings of a CSV import.
  csv_date_order: '--date-order is dmy or mdy: not {order}',
  csv_map_pair: '--map takes "Header=field" pairs separated by commas: not "{pair}"',
  csv_map_field: '--map names no field {fields} (docs/moving-in.md lists them)',
  // A row of a CSV file.
  csv_not_yes_no: '"{value}" is neither yes nor no',
  csv_name_empty: 'the name is empty',
  csv_start_empty: 'the start date is empty',
  csv_ends_before_start: 'the event ends ({end}) before it starts ({start})',
  csv_not_coordinate: '"{value}" is no coordinate (-{limit} to {limit})',
  csv_coordinates_apart: 'latitude and longitude go together',
  csv_no_such_date: '"{value}" is no date of the calendar',
  csv_not_date: '"{value}" is no date: write 2026-12-31, 31/12/2026 or 12/31/2026',
  csv_day_or_month: '"{value}" could be day/month or month/day: pass --date-order dmy or mdy',
  csv_twelve_hours: '"{value}": a 12-hour clock goes from 1 to 12',
  csv_not_time: '"{value}" is no time of day: write 14:30 or 2:30 pm',
  csv_no_such_time: '"{value}" is no time of day',
  csv_same_event_id: 'the same id as line {line}: each event of a file has an id of its own',
  csv_same_venue_id: 'the same id as line {line}: each venue of a file has an id of its own',
  csv_same_organizer_id: 'the same id as line {line}: each organizer of a file has an id of its own',
  csv_same_event: 'the same event as line {line} (the same name and start): give the rows an id column to tell them apart',
  csv_same_venue: 'the same venue as line {line} (the same name): give the rows an id column to tell them apart',
  csv_same_organizer: 'the same organizer as line {line} (the same name): give the rows an id column to tell them apart',
  csv_taken_meanwhile: 'another import created this item meanwhile: import the file again',
  // A WordPress export that is none (after "line N: " when the line is known).
  wxr_rss_feed: 'an RSS feed, not a WordPress export (no wp:wxr_version)',
  wxr_doctype: 'XML with a document type declaration (DOCTYPE): refused, its entities are never read',
  wxr_not_well_formed: 'not well-formed XML: {detail}',
  wxr_not_rss: 'not a WordPress export: the document is <{element}>, not <rss>',
  wxr_not_channel: 'not a WordPress export: <rss> holds <{element}>, not <channel>',
  wxr_no_element: 'not XML: no element',
  wxr_unreadable: 'cannot read: {detail}',
  wxr_no_tec_items:
    "a WordPress export without The Events Calendar's events, venues or organizers (tribe_events, tribe_venue, tribe_organizer)",
  wxr_no_uploads_folder: '--uploads {folder}: no such folder',
  // An image of a WordPress export.
  wxr_image_not_found: 'no file {file} in the uploads folder, and no address to fetch it from',
  wxr_image_not_fetched: '{url}: {detail}',
  // The Events Calendar's API that is none, or cannot be read (after "URL: ").
  tec_not_url: 'not a URL',
  tec_not_http: 'not an http(s) URL',
  tec_next_elsewhere: "next_rest_url {next} leaves the site or goes back: not The Events Calendar's API",
  tec_not_object: 'answered no JSON object',
  tec_unreachable: '{detail}',
  tec_no_answer: 'no answer',
  tec_refused: 'refused ({status}): check --user and --password',
  tec_status: "status {status}: not The Events Calendar's API",
  tec_not_json: "answered {type}, not JSON: not The Events Calendar's API",
  tec_no_content_type: "answered no content type, not JSON: not The Events Calendar's API",
  tec_malformed_json: 'answered malformed JSON',
  tec_no_list: "no list of {key} in the answer: not The Events Calendar's API",
  tec_next_not_url: "next_rest_url is not a URL: not The Events Calendar's API",
  // An item of The Events Calendar's API imported with something to know.
  tec_protected: 'password-protected there; the API does not give passwords: imported with a new one, to set in the editor',
} as const;

export type ImportProblemCode = keyof typeof IMPORT_PROBLEMS;

export type ProblemParams = Readonly<Record<string, string | number>>;

/** A problem in words: its English sentence, its code, and the details the sentence names. */
export interface ImportProblem {
  readonly message: string;
  /** An importer's own code (`IMPORT_PROBLEMS`), or the code of a service's refusal (`rest_invalid_param`). */
  readonly code: string;
  /** The details, by the names the sentence gives them; a refusal's is the parameter refused (`param`), if any. */
  readonly params: ProblemParams;
}

/** `template` with each `{name}` replaced by the detail of that name (a name without one is left as it is). */
export function fill(template: string, params: ProblemParams): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** A problem an importer finds itself, by one of its codes. */
export interface OwnProblem extends ImportProblem {
  readonly code: ImportProblemCode;
}

export function importProblem(code: ImportProblemCode, params: ProblemParams = {}): OwnProblem {
  return { message: fill(IMPORT_PROBLEMS[code], params), code, params };
}

/** A problem thrown: its message is the problem's English sentence, in `frame` when given (`line 3: …`). */
export class ImportProblemError extends Error {
  readonly problem: OwnProblem;

  constructor(code: ImportProblemCode, params: ProblemParams = {}, frame: (sentence: string) => string = (sentence) => sentence) {
    const problem = importProblem(code, params);
    super(frame(problem.message));
    this.problem = problem;
  }
}
