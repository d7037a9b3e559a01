import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { placeBars } from '../../src/calendar/pages/pages.bars.ts';
import type { EventCard } from '../../src/calendar/pages/pages.present.ts';
import { contrast, inkOn, parseTheme, readableOn, TEXT_CONTRAST, themeCss, themeHref } from '../../src/calendar/pages/pages.theme.ts';

/** Every 17th step of each channel: 4096 colours from black to white, greys and the saturated corners included. */
const COLORS = [...Array(16).keys()].flatMap((r) =>
  [...Array(16).keys()].flatMap((g) =>
    [...Array(16).keys()].map((b) => `#${[r, g, b].map((step) => (step * 17).toString(16).padStart(2, '0')).join('')}`),
  ),
);

describe('theme colours', () => {
  it('computes WCAG contrast ratios', () => {
    assert.equal(contrast('#000000', '#ffffff'), 21);
    assert.equal(contrast('#777777', '#777777'), 1);
    assert.ok(Math.abs(contrast('#767676', '#ffffff') - 4.54) < 0.01);
    assert.ok(Math.abs(contrast('#2563eb', '#ffffff') - 5.17) < 0.01);
  });

  it('gives every fill colour an ink that reads on it at AA (4.5:1)', () => {
    for (const color of COLORS) assert.ok(contrast(inkOn(color), color) >= TEXT_CONTRAST, color);
  });

  it('turns any accent into link colours that read on the light and the dark paper, keeping those that already do', () => {
    for (const color of COLORS) {
      assert.ok(contrast(readableOn(color, '#ffffff'), '#ffffff') >= TEXT_CONTRAST, color);
      assert.ok(contrast(readableOn(color, '#121417'), '#121417') >= TEXT_CONTRAST, color);
    }
    assert.equal(readableOn('#2563eb', '#ffffff'), '#2563eb');
    // Yellow on white is darkened, not replaced: still more red and green than blue.
    const [r, g, b] = [1, 3, 5].map((at) => parseInt(readableOn('#facc15', '#ffffff').slice(at, at + 2), 16)) as [number, number, number];
    assert.ok(r > b && g > b, `${r} ${g} ${b}`);
  });

  it('writes the stylesheet of an accent and its colours, and reads back only the addresses it makes', () => {
    const href = themeHref('/base', '#7C3AED', ['#facc15', '#0f766e', '#facc15']);
    assert.equal(href, '/base/events/assets/theme.css?accent=7c3aed&colors=0f766e.facc15');
    const parsed = parseTheme(Object.fromEntries(new URL(href, 'http://x').searchParams));
    assert.deepEqual(parsed, { accent: '#7c3aed', colors: ['#0f766e', '#facc15'] });
    const css = themeCss('#7c3aed', ['#0f766e', '#facc15']);
    assert.match(css, /--brand:#7c3aed;--brand-ink:#ffffff/);
    assert.match(css, /\.cc-facc15\{--cat:#facc15;--cat-ink:#000000\}/);
    assert.deepEqual(parseTheme({}), { invalid: 'accent' });
    assert.deepEqual(parseTheme({ accent: 'FFFFFF' }), { invalid: 'accent' });
    assert.deepEqual(parseTheme({ accent: 'ffffff', colors: ['abcdef'] }), { invalid: 'colors' });
    assert.deepEqual(parseTheme({ accent: 'ffffff', colors: Array(65).fill('abcdef').join('.') }), { invalid: 'colors' });
  });
});

describe('bars of a grid row', () => {
  const WEEK = ['2027-03-08', '2027-03-09', '2027-03-10', '2027-03-11', '2027-03-12', '2027-03-13', '2027-03-14'];
  const card = (href: string, spans: boolean, firstDay = WEEK[0]!, lastDay = WEEK[6]!): EventCard => ({
    title: href,
    href,
    time: '',
    datetime: '',
    when: '',
    color: '',
    spans,
    firstDay,
    lastDay,
  });

  it('gives an event shown on consecutive days one lane, its length on its first day, and keeps each day’s order', () => {
    const long = card('/long', true);
    const short = card('/short', true);
    const single = card('/single', false);
    // Monday to Wednesday: `long`; Tuesday and Wednesday: `short`, listed before `long` on Wednesday.
    const placed = placeBars([[long], [single, long, short], [short, long], [], [], [], []], WEEK);
    assert.deepEqual(
      placed[0]!.events.map((entry) => [entry.card.href, entry.lane, entry.span]),
      [['/long', 0, 3]],
    );
    assert.deepEqual(
      placed[1]!.events.map((entry) => [entry.card.href, entry.lane, entry.span]),
      [
        ['/single', undefined, 1],
        ['/long', 0, 0],
        ['/short', 1, 2],
      ],
    );
    assert.deepEqual(
      placed[2]!.events.map((entry) => [entry.card.href, entry.lane]),
      [
        ['/short', 1],
        ['/long', 0],
      ],
    );
    // Monday keeps lane 1 free, so that Tuesday's bar lines up; days with no bar leave no gap.
    assert.deepEqual(placed[0]!.gaps, [1]);
    assert.deepEqual(placed[3]!.gaps, [0, 1]);
  });

  it('draws an event shown on one day of the row only, or beyond the lanes, as a chip', () => {
    const [last] = placeBars([[], [], [], [], [], [], [card('/wraps', true)]], WEEK).slice(6);
    assert.deepEqual(last!.events[0], { card: last!.events[0]!.card, span: 1 });
    const many = [...Array(5).keys()].map((index) => card(`/bar${index}`, true));
    const row = placeBars([many, many, [], [], [], [], []], WEEK);
    assert.deepEqual(
      row[0]!.events.map((entry) => entry.lane),
      [0, 1, 2, 3, undefined],
    );
  });

  it('says of a bar the row clips that its event runs on before or after the row', () => {
    const across = card('/across', true, '2027-03-05', '2027-03-09');
    const inside = card('/inside', true, '2027-03-10', '2027-03-11');
    const beyond = card('/beyond', true, '2027-03-13', '2027-03-20');
    const row = placeBars([[across], [across], [inside], [inside], [], [beyond], [beyond]], WEEK);
    const first = (day: number) => row[day]!.events[0]!;
    assert.deepEqual([first(0).span, first(0).before, first(0).after], [2, true, false]);
    assert.deepEqual([first(2).span, first(2).before, first(2).after], [2, false, false]);
    assert.deepEqual([first(5).span, first(5).before, first(5).after], [2, false, true]);
    // The days a bar runs over say nothing more: the piece on its first day carries the marks.
    assert.equal(first(1).before, undefined);
  });
});
