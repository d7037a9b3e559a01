/**
 * The pages' colours that come from the calendar: the site's accent and the categories' colours. The pages may run
 * no inline style (strict CSP), so they link a small stylesheet made from its address alone — the accent and the
 * colours a page shows — which caches may keep forever: another accent or another set of colours is another address.
 */

/** Where the theme stylesheet is served, below the site root. */
export const THEME_PATH = '/events/assets/theme.css';

/** `rrggbb`, lower case: how colours travel in the theme's address and in class names. */
const HEX = /^[0-9a-f]{6}$/;
/** Most colours a theme address carries: more than any page shows, few enough to keep the address short. */
const MAX_COLORS = 64;

/** WCAG's contrast a text needs on its background (AA, normal text). */
export const TEXT_CONTRAST = 4.5;

const BLACK = '#000000';
const WHITE = '#ffffff';
/** The pages' backgrounds in the light and the dark scheme (calendar.css `--paper` and `--soft`), which links are read on. */
const SCHEMES = {
  light: { paper: WHITE, soft: '#f3f4f6' },
  dark: { paper: '#121417', soft: '#1e2227' },
} as const;

function channels(color: string): [number, number, number] {
  const hex = color.replace('#', '');
  return [0, 2, 4].map((at) => parseInt(hex.slice(at, at + 2), 16)) as [number, number, number];
}

function hexOf(rgb: readonly number[]): string {
  return `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG 2's relative luminance of `#rrggbb`. */
export function luminance(color: string): number {
  const [r, g, b] = channels(color).map((channel) => {
    const value = channel / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2's contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The text colour for a fill of `color`: black or white, whichever reads better (one of them always reaches 4.5:1). */
export function inkOn(color: string): string {
  return contrast(color, BLACK) >= contrast(color, WHITE) ? BLACK : WHITE;
}

/**
 * `color` as text on `background`: itself when it reads there (`TEXT_CONTRAST`), else mixed towards black or
 * white — whichever the background contrasts with — just enough that it does, keeping its hue.
 */
export function readableOn(color: string, background: string): string {
  if (contrast(color, background) >= TEXT_CONTRAST) return color;
  const target = channels(inkOn(background));
  const from = channels(color);
  const mix = (share: number) => hexOf(from.map((channel, index) => channel + (target[index]! - channel) * share));
  let [low, high] = [0, 1];
  for (let step = 0; step < 12; step += 1) {
    const middle = (low + high) / 2;
    if (contrast(mix(middle), background) >= TEXT_CONTRAST) high = middle;
    else low = middle;
  }
  return mix(high);
}

/** Today's background: the accent, faint on `paper` (text on it keeps the paper's contrast, nearly). */
function tint(color: string, paper: string): string {
  const [from, to] = [channels(color), channels(paper)];
  return hexOf(to.map((channel, index) => channel + (from[index]! - channel) * 0.12));
}

/** A category colour's class on the pages (`#1a7f5a` → `cc-1a7f5a`). */
export function colorClass(color: string): string {
  return `cc-${color.slice(1)}`;
}

/** The address of the theme of `accent` with the category colours `colors` (any order, repeats allowed). */
export function themeHref(basePath: string, accent: string, colors: Iterable<string>): string {
  const shown = [...new Set([...colors].map((color) => color.slice(1)))].sort().slice(0, MAX_COLORS);
  const query = new URLSearchParams({ accent: accent.slice(1).toLowerCase() });
  if (shown.length > 0) query.set('colors', shown.join('.'));
  return `${basePath}${THEME_PATH}?${query.toString()}`;
}

/** The theme's arguments as its address gives them, or the one that is not as `themeHref` makes it. */
export function parseTheme(query: {
  accent?: unknown;
  colors?: unknown;
}): { accent: string; colors: string[] } | { invalid: 'accent' | 'colors' } {
  const { accent, colors = '' } = query;
  if (typeof accent !== 'string' || !HEX.test(accent)) return { invalid: 'accent' };
  const list = typeof colors === 'string' && colors !== '' ? colors.split('.') : [];
  if (typeof colors !== 'string' || list.length > MAX_COLORS || !list.every((color) => HEX.test(color))) return { invalid: 'colors' };
  return { accent: `#${accent}`, colors: list.map((color) => `#${color}`) };
}

/**
 * The theme stylesheet: the accent as links read it on each scheme's paper and as a fill (buttons, today, bars)
 * with its ink, and each category colour's class with the ink of text drawn on it.
 */
export function themeCss(accent: string, colors: readonly string[]): string {
  const scheme = ({ paper, soft }: { paper: string; soft: string }) => {
    const today = tint(accent, paper);
    const link = [paper, soft, today].reduce((color, background) => readableOn(color, background), accent);
    return `--accent:${link};--today:${today}`;
  };
  const lines = [
    `:root{${scheme(SCHEMES.light)};--brand:${accent};--brand-ink:${inkOn(accent)}}`,
    `@media screen and (prefers-color-scheme: dark){:root{${scheme(SCHEMES.dark)}}}`,
    ...colors.map((color) => `.${colorClass(color)}{--cat:${color};--cat-ink:${inkOn(color)}}`),
  ];
  return `${lines.join('\n')}\n`;
}
