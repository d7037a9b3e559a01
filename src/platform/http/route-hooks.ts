/**
 * A route's hook list with `hook` first, as an application-level hook would
 * run, for plugins that give a hook only to the routes that need it (from an
 * `onRoute` hook): the others skip that stage of the request entirely.
 */
export function withHookFirst<T>(hook: T, hooks: T | T[] | undefined): T[] {
  return [hook, ...(hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks])];
}
