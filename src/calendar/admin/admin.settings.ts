import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { LOCALES, UpdateSettingsSchema, type Settings, type SettingName } from '../settings/settings.schemas.ts';
import type { AdminContext } from './admin.context.ts';
import * as forms from './admin.forms.ts';
import type { AdminDictionary } from './admin.i18n.ts';

const config = { access: 'manage_options' } as const;
/** The clocks the form offers; a stored format of another spelling is offered too, so that saving keeps it. */
const CLOCKS = ['', 'g:i a', 'H:i'] as const;
const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];

/** `/admin/settings` (administrators): every setting of `/wp/v2/settings`, saved through its service and schema. */
export async function settingsScreenRoutes(app: FastifyInstance, { context }: { context: AdminContext }): Promise<void> {
  app.get('/admin/settings', { config, schema: { hide: true, querystring: forms.FormQuery }, handler: showSettings(context) });
  app.post('/admin/settings', {
    config,
    attachValidation: true,
    preValidation: forms.keepTyped({}),
    schema: { hide: true, body: UpdateSettingsSchema },
    handler: saveSettings(context),
  });
}

function fieldsOf(t: AdminDictionary, current: Settings): forms.Field[] {
  const { setting } = t;
  const clocks = CLOCKS.includes(current.time_format as (typeof CLOCKS)[number]) ? CLOCKS : [...CLOCKS, current.time_format];
  const clockLabel = (format: string) =>
    format === '' ? setting.languageDefault : format === 'g:i a' ? setting.clock12 : format === 'H:i' ? setting.clock24 : format;
  return [
    { name: 'title', label: setting.title },
    { name: 'description', label: setting.description },
    { name: 'title_it', label: setting.title_it, lang: 'it' },
    { name: 'description_it', label: setting.description_it, lang: 'it' },
    { name: 'timezone', label: setting.timezone, type: 'select', options: ZONES.map((zone) => ({ value: zone, label: zone })) },
    {
      name: 'language',
      label: setting.language,
      type: 'select',
      options: Object.values(LOCALES).map((locale) => ({ value: locale, label: setting.languages[locale] ?? locale })),
    },
    {
      name: 'start_of_week',
      label: setting.start_of_week,
      type: 'select',
      options: setting.days.map((day, index) => ({ value: String(index), label: day })),
    },
    { name: 'date_format', label: setting.date_format, hint: setting.dateFormatHint },
    {
      name: 'time_format',
      label: setting.time_format,
      type: 'select',
      options: clocks.map((format) => ({ value: format, label: clockLabel(format) })),
    },
    { name: 'currency_symbol', label: setting.currency_symbol },
    {
      name: 'currency_position',
      label: setting.currency_position,
      type: 'select',
      options: [
        { value: 'prefix', label: setting.prefix },
        { value: 'postfix', label: setting.postfix },
      ],
    },
  ];
}

const valuesOf = (settings: Settings): forms.Values =>
  Object.fromEntries(Object.entries(settings).map(([name, value]) => [name, String(value)]));

function sendSettings(
  context: AdminContext,
  request: FastifyRequest,
  reply: FastifyReply,
  current: Settings,
  form: { values: forms.Values; errors?: forms.FieldErrors; notice?: string },
) {
  const { t } = context.page(request);
  const action = `${context.config.basePath}/admin/settings`;
  return forms.sendForm(context, request, reply, {
    heading: t.nav.settings,
    action,
    fields: fieldsOf(t, current),
    ...form,
    submit: t.form.save,
    back: { href: `${context.config.basePath}/admin/`, label: t.dashboard },
  });
}

function showSettings(context: AdminContext) {
  return async (request: FastifyRequest<{ Querystring: Static<typeof forms.FormQuery> }>, reply: FastifyReply) => {
    const current = await context.services.deps.settings.latest();
    return sendSettings(context, request, reply, current, {
      values: valuesOf(current),
      notice: forms.noticeOf(context.page(request), request.query),
    });
  };
}

function saveSettings(context: AdminContext) {
  return async (request: FastifyRequest<{ Body: Static<typeof UpdateSettingsSchema> }>, reply: FastifyReply) => {
    const page = context.page(request);
    const service = context.services.deps.settings;
    const current = await service.latest();
    // Only what was changed is set: a setting left at its default keeps following it (the configuration, the title).
    const body = request.body as Record<string, unknown>;
    const changes = Object.fromEntries(
      (Object.keys(current) as SettingName[])
        .filter((name) => body[name] !== undefined && String(body[name]) !== String(current[name]))
        .map((name) => [name, body[name]]),
    );
    const errors = forms.validationErrorsOf(request, page) ?? (await forms.attempt(page, () => service.update(changes)));
    if (errors !== undefined)
      return sendSettings(context, request, reply, current, { values: { ...valuesOf(current), ...forms.typedValues(request) }, errors });
    return reply.redirect(`${context.config.basePath}/admin/settings?saved=1`, 303);
  };
}
