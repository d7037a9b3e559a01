/**
 * The event cost, as the reference shows it: costs are stored as given;
 * the currency symbol and its position are parsed from them on write; the
 * `cost` string and `cost_details.values` are derived on read.
 */

const NUMBER = /\d+(?:[.,]\d+)*/g;

export interface CurrencyFacts {
  readonly symbol: string;
  readonly position: '' | 'prefix' | 'postfix';
}

/**
 * The symbol is what surrounds the numbers (it must be the same in every
 * cost, else none); `prefix` when it comes first, `postfix` otherwise.
 */
export function parseCurrency(costs: readonly string[]): CurrencyFacts {
  let found: CurrencyFacts | undefined;
  for (const cost of costs) {
    const numbers = [...cost.matchAll(NUMBER)];
    const first = numbers[0];
    const last = numbers.at(-1);
    if (first === undefined || last === undefined) continue;
    const before = cost.slice(0, first.index).trim();
    const after = cost.slice(last.index + last[0].length).trim();
    const facts: CurrencyFacts =
      before !== ''
        ? { symbol: before, position: 'prefix' }
        : after !== ''
          ? { symbol: after, position: 'postfix' }
          : { symbol: '', position: '' };
    if (found !== undefined && (found.symbol !== facts.symbol || found.position !== facts.position)) return { symbol: '', position: '' };
    found = facts;
  }
  return found ?? { symbol: '', position: '' };
}

/** A number as written → its canonical string: thousands separators dropped, decimal separator `.`. */
export function normaliseNumber(text: string): string {
  const groups = text.split(/[.,]/);
  if (groups.length === 1) return text;
  const last = groups.at(-1) ?? '';
  const thousandsOnly = last.length === 3;
  if (thousandsOnly) return groups.join('');
  return `${groups.slice(0, -1).join('')}.${last}`;
}

interface Amount {
  readonly text: string;
  readonly value: number;
}

function amountsOf(costs: readonly string[]): { amounts: Amount[]; values: string[] } {
  const amounts: Amount[] = [];
  const values: string[] = [];
  costs.forEach((cost, index) => {
    const numbers = [...cost.matchAll(NUMBER)].map((match) => match[0]);
    if (numbers.length === 0) values.push(String(index));
    for (const text of numbers) {
      const canonical = normaliseNumber(text);
      amounts.push({ text, value: Number(canonical) });
      values.push(canonical);
    }
  });
  values.sort((a, b) => Number(a) - Number(b));
  return { amounts, values };
}

/** `cost_details.values`: the numbers as canonical strings, sorted numerically. */
export function costValues(costs: readonly string[]): string[] {
  return costs.length === 0 ? [] : amountsOf(costs).values;
}

/** The site's currency (its settings), for costs written without a symbol or its position. */
export interface SiteCurrency {
  readonly currency_symbol: string;
  readonly currency_position: 'prefix' | 'postfix';
}

/**
 * The `cost` string: the lowest and highest amounts with the currency
 * symbol (the site's, where it puts it, when none was given), zero as
 * `Free`, joined by an en dash; text without numbers is shown as written.
 */
export function formatCost(costs: readonly string[], currency: CurrencyFacts, site: SiteCurrency): string {
  if (costs.length === 0) return '';
  const { amounts } = amountsOf(costs);
  if (amounts.length === 0) return costs.join(', ');
  const sorted = [...amounts].sort((a, b) => a.value - b.value);
  const symbol = currency.symbol === '' ? site.currency_symbol : currency.symbol;
  const position = currency.position === '' ? site.currency_position : currency.position;
  const show = (amount: Amount) => {
    if (amount.value === 0) return 'Free';
    return position === 'postfix' ? `${amount.text}${symbol}` : `${symbol}${amount.text}`;
  };
  const low = sorted[0] as Amount;
  const high = sorted.at(-1) as Amount;
  return low.value === high.value ? show(low) : `${show(low)} \u2013 ${show(high)}`;
}
