/**
 * A signed-in session of the editor for the admin lines: logged in once through the login form, as a browser does
 * (the form's token from its page and cookie), so that every measured request is an editor page as people load it.
 */

/** The `name=value` pairs of an answer's Set-Cookie lines, as a Cookie header sends them back (a name set twice once: the last). */
export function cookieHeaderOf(setCookies: readonly string[]): string {
  const pairs = new Map<string, string>();
  for (const line of setCookies) {
    const pair = line.split(';', 1)[0]!.trim();
    const equals = pair.indexOf('=');
    if (equals > 0) pairs.set(pair.slice(0, equals), pair);
  }
  return [...pairs.values()].join('; ');
}

/** The form token a page carries. */
export function formTokenOf(html: string): string | undefined {
  return /name="csrf" value="([^"]*)"/.exec(html)?.[1];
}

/** Logs `username` in to the editor at `baseUrl`; the Cookie header of its session. */
export async function adminSessionCookie(baseUrl: string, username: string, password: string): Promise<string> {
  const form = await fetch(`${baseUrl}/admin/login`);
  const csrf = formTokenOf(await form.text());
  if (csrf === undefined) throw new Error(`no login form at ${baseUrl}/admin/login (${form.status})`);
  const answer = await fetch(`${baseUrl}/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeaderOf(form.headers.getSetCookie()) },
    body: new URLSearchParams({ csrf, username, password }).toString(),
    redirect: 'manual',
  });
  const cookie = cookieHeaderOf(answer.headers.getSetCookie().filter((line) => line.startsWith('almanac_session=')));
  if (answer.status !== 303 || cookie === '') throw new Error(`the editor refused the bench's login (${answer.status})`);
  return cookie;
}
