import { isValidTimezone, type Config, type Language } from '../../config/config.ts';
import type { Db } from '../../platform/db/schema.ts';
import { readRevision, revisionOf, revisionOfTick, type RevisionsHolder } from '../../platform/db/revisions.ts';
import { SITE_TITLES } from '../common/site-title.ts';
import { invalidParam } from '../common/wire.ts';
import { findImagesByIds } from '../common/images.repository.ts';
import { listSettings, saveSettings } from './settings.repository.ts';
import { LOCALES, SettingsSchema, type SettingName, type Settings, type UpdateSettings } from './settings.schemas.ts';

const NAMES = Object.keys(SettingsSchema.properties) as SettingName[];

/** The pages' accent when none was set: a clear blue that reads as a link on white (5.2:1). */
export const DEFAULT_ACCENT = '#2563eb';

/** The language a `language` setting (a locale) names. */
export function languageOfLocale(locale: Settings['language']): Language {
  return locale === LOCALES.it ? 'it' : 'en';
}

/**
 * The site's settings, stored in the database and read by every process. Each process keeps the last ones it read
 * with the `settings` revision they were read at, and reads them again when a request finds that revision moved
 * (a write in any process bumps it): that revision comes from the one read of every revision per tick, so a
 * request sees every write made before it arrived, at no cost while nothing changes.
 */
export class SiteSettingsService {
  private loaded: { readonly revision: number; readonly settings: Promise<Settings> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  /** The settings in effect for `request` (as of its arrival). */
  async current(request: RevisionsHolder): Promise<Settings> {
    return this.at(await revisionOf(this.db, request, 'settings'));
  }

  /**
   * The settings as of this tick's read of the revisions, for a read: asked with its calendar version (in the same
   * tick), they are that version's. A request's own revisions may be older (read by its authentication a tick before).
   */
  async ofTick(): Promise<Settings> {
    return this.at(await revisionOfTick(this.db, 'settings'));
  }

  /**
   * The settings in effect now, for work outside requests (a webhook round, the command line): their revision is
   * read for it alone, since a timer's read shared with the tick's requests could be older than some of them.
   */
  async latest(): Promise<Settings> {
    return this.at(await readRevision(this.db, 'settings'));
  }

  private at(revision: number): Promise<Settings> {
    const loaded = this.loaded;
    // A request that read an older revision may take newer settings: it is answered after they were written.
    if (loaded !== undefined && loaded.revision >= revision) return loaded.settings;
    const settings = this.read(this.db);
    this.loaded = { revision, settings };
    settings.catch(() => {
      if (this.loaded?.settings === settings) this.loaded = undefined;
    });
    return settings;
  }

  /**
   * Sets the settings `changes` names (`null`: back to the default) and answers them all as they now are. A bad value
   * is a 400 naming it, and nothing is changed.
   */
  async update(changes: UpdateSettings): Promise<Settings> {
    const values = new Map<string, string>();
    const unset: SettingName[] = [];
    for (const name of NAMES) {
      const value = changes[name];
      if (value === undefined) continue;
      if (value === null) unset.push(name);
      else values.set(name, JSON.stringify(value));
    }
    const zone = changes.timezone;
    if (typeof zone === 'string' && !isValidTimezone(zone)) throw invalidParam('timezone', 'timezone is not a known IANA time zone.');
    const logo = changes.site_logo;
    if (typeof logo === 'number' && logo > 0 && (await findImagesByIds(this.db, [logo])).every((image) => image.file === null)) {
      throw invalidParam('site_logo', 'site_logo must be the id of an image of the media library, or 0.');
    }
    if (typeof changes.almanac_accent_color === 'string')
      values.set('almanac_accent_color', JSON.stringify(changes.almanac_accent_color.toLowerCase()));
    if (values.size === 0 && unset.length === 0) return this.read(this.db);
    return this.db.transaction().execute(async (trx) => {
      await saveSettings(trx, values, unset);
      return this.read(trx);
    });
  }

  private async read(db: Db): Promise<Settings> {
    return settingsFrom(await listSettings(db), this.config);
  }
}

/** The settings in effect when none was set: the configuration's time zone and language, and the defaults. */
export function defaultSettings(config: Config): Settings {
  return settingsFrom(new Map(), config);
}

/** The settings in effect, from those stored (JSON texts by name): each one not set takes its default. */
function settingsFrom(stored: ReadonlyMap<string, string>, config: Config): Settings {
  const set = <N extends SettingName>(name: N): Settings[N] | undefined => {
    const text = stored.get(name);
    return text === undefined ? undefined : (JSON.parse(text) as Settings[N]);
  };
  const title = set('title');
  const description = set('description');
  return {
    title: title ?? SITE_TITLES.en,
    description: description ?? '',
    title_it: set('title_it') ?? title ?? SITE_TITLES.it,
    description_it: set('description_it') ?? description ?? '',
    timezone: set('timezone') ?? config.siteTimezone,
    date_format: set('date_format') ?? '',
    time_format: set('time_format') ?? '',
    start_of_week: set('start_of_week') ?? 1,
    language: set('language') ?? LOCALES[config.defaultLanguage],
    currency_symbol: set('currency_symbol') ?? '$',
    currency_position: set('currency_position') ?? 'prefix',
    site_logo: set('site_logo') ?? 0,
    almanac_accent_color: set('almanac_accent_color') ?? DEFAULT_ACCENT,
  };
}
