import { ByteBoundedMap } from './byte-bounded-map.ts';

/**
 * What a surface caches of its reads, with one key scheme (`cacheKey`) and
 * one eviction policy (the least recently used first, by bytes), in two lifetimes:
 *
 * - **per version**: a value computed in a version of the data (an answer's
 *   bytes, a list's total, a page's ids) holds for as long as that version
 *   is current, and is computed once in it, however many requests ask at
 *   once. A new version starts empty. Budget: `versionBytes`.
 * - **per item**: a representation of one item (an event in one language)
 *   holds until the item changes: the surface's invalidation routine names
 *   what changed (`invalidateItems`). Budget: `itemBytes`.
 *
 * A budget of 0 caches nothing of that lifetime; everything is computed.
 */
export class ReadCache {
  private readonly versioned: ByteBoundedMap<unknown>;
  private readonly items: ByteBoundedMap<ItemEntry>;
  /** Whether item entries are cached at all (an item budget above 0). */
  readonly cachesItems: boolean;
  private version: unknown;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** The keys of the item entries that show each item. */
  private readonly keysOfItem = new Map<number, Set<string>>();
  /** The version item entries are invalidated up to: an entry computed in an older one may show a change already invalidated. */
  private invalidatedUpTo: unknown;
  /** The version every item entry was last invalidated at: an entry that shows no item is refused only if older. */
  private clearedAt: unknown;

  constructor(budgets: { readonly versionBytes: number; readonly itemBytes: number }) {
    this.versioned = new ByteBoundedMap(budgets.versionBytes);
    this.cachesItems = budgets.itemBytes > 0;
    this.items = new ByteBoundedMap<ItemEntry>(budgets.itemBytes, (key, { ids }) => this.unindex(key, ids));
  }

  /**
   * The value `key` names in `version` (compared with `===`: the same value or object for as long as it holds),
   * computed by `produce` once in that version; `bytes` says what it weighs. A failed computation is not cached.
   */
  once<T>(version: unknown, key: string, produce: () => Promise<T>, bytes: (value: T) => number): Promise<T> {
    if (version !== this.version) {
      // A request that read its version before a newer one was seen computes alone, and caches nothing.
      if (this.version !== undefined && isOlder(version, this.version)) return produce();
      this.version = version;
      this.versioned.clear();
      this.inFlight.clear();
    }
    const cached = this.versioned.get(key) as T | undefined;
    if (cached !== undefined) return Promise.resolve(cached);
    let pending = this.inFlight.get(key) as Promise<T> | undefined;
    if (pending === undefined) {
      pending = produce();
      this.inFlight.set(key, pending);
      const settled = () => {
        if (this.inFlight.get(key) === pending) this.inFlight.delete(key);
      };
      pending.then((value) => {
        if (this.version === version && this.inFlight.get(key) === pending) this.versioned.set(key, value, bytes(value));
        settled();
      }, settled);
    }
    return pending;
  }

  item<T>(key: string): T | undefined {
    return this.items.get(key)?.value as T | undefined;
  }

  /**
   * Caches `value` under `key` until one of `ids` changes, unless it was computed in a version (`computedIn`,
   * ordered as versions are) older than an invalidation that would have removed it: the last of all for an entry
   * of items, the last of everything for one that shows none (and is brought up to date by its owner).
   */
  setItem(key: string, ids: readonly number[], value: unknown, bytes: () => number, computedIn: unknown): void {
    const stale = isOlder(computedIn, ids.length === 0 ? this.clearedAt : this.invalidatedUpTo);
    if (stale || !this.cachesItems || !this.items.set(key, { value, ids }, bytes())) return;
    for (const id of ids) {
      let keys = this.keysOfItem.get(id);
      if (keys === undefined) this.keysOfItem.set(id, (keys = new Set()));
      keys.add(key);
    }
  }

  /** Invalidates the entries of the items changed up to version `at` (every entry when `ids` is undefined: the changes are unknown). */
  invalidateItems(ids: Iterable<number> | undefined, at: unknown): void {
    if (!isOlder(at, this.invalidatedUpTo)) this.invalidatedUpTo = at;
    if (ids === undefined) {
      if (!isOlder(at, this.clearedAt)) this.clearedAt = at;
      this.items.clear();
    } else for (const id of ids) for (const key of [...(this.keysOfItem.get(id) ?? [])]) this.items.delete(key);
  }

  private unindex(key: string, ids: readonly number[]): void {
    for (const id of ids) {
      const keys = this.keysOfItem.get(id);
      if (keys?.delete(key) === true && keys.size === 0) this.keysOfItem.delete(id);
    }
  }
}

/**
 * Whether `version` comes before `other`. Versions are ordered by their revision, then by the instant they start
 * from; an opaque value (or none) is never older, nor anything older than it.
 */
export function isOlder(version: unknown, other: unknown): boolean {
  const [revision, from] = orderOf(version);
  const [otherRevision, otherFrom] = orderOf(other);
  return revision < otherRevision || (revision === otherRevision && from < otherFrom);
}

/** A version's place in time: a revision (a number, or an object's `revision`), then its `from` when it has one. */
function orderOf(version: unknown): [number, string] {
  if (typeof version === 'number') return [version, ''];
  const { revision, from } = (version ?? {}) as { readonly revision?: number; readonly from?: string };
  return [revision ?? Number.NaN, from ?? ''];
}

interface ItemEntry {
  readonly value: unknown;
  readonly ids: readonly number[];
}

/**
 * The one key scheme: what names the resource (a URL, an item kind and id), then everything else that shapes its
 * bytes, joined by NUL, which no part holds (Node refuses it in a request target; JSON escapes it).
 */
export function cacheKey(...parts: readonly (string | number | undefined)[]): string {
  return parts.join('\u0000');
}

/** What a version's reads compute besides answers (totals, pages' ids, term counts) is cached even when no answer is. */
const MIN_VERSION_BYTES = 1024 * 1024;

/** A surface's budgets: `answerBytes` (RESPONSE_CACHE_MB) for answers and values per version, `itemBytes` for items. */
export function cacheBudgets(answerBytes: number, itemBytes = 0): { versionBytes: number; itemBytes: number } {
  return { versionBytes: Math.max(answerBytes, MIN_VERSION_BYTES), itemBytes };
}
