import type { FieldValue } from '../provider/entity-provider.ts';

/** A run's parameters after validation: only declared names, with values of their declared types. */
export type RunParams = ReadonlyMap<string, string | number | boolean>;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/** The parameter a string consists of entirely (`"{{city}}"`), if any. */
export function wholePlaceholder(text: string): string | undefined {
  return WHOLE.exec(text)?.[1];
}

/** Every parameter name a string refers to. */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
}

/**
 * Fills a template value. A string that is one placeholder takes the
 * parameter's typed value (`undefined` when an optional one was not given);
 * placeholders inside a longer string are replaced by their text (`""` when
 * not given). Substitution is textual: nothing is ever evaluated.
 */
export function fill(template: FieldValue, params: RunParams): FieldValue | undefined {
  if (typeof template !== 'string') return template;
  const whole = wholePlaceholder(template);
  if (whole !== undefined) return params.get(whole);
  return template.replace(PLACEHOLDER, (_match, name: string) => String(params.get(name) ?? ''));
}
