import assert from 'node:assert/strict';

/** A browser of the editor: keeps its cookies, follows no redirect, reads the form tokens from the pages. */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** The raw Set-Cookie lines of the last answer. */
  setCookies: string[] = [];

  constructor(private readonly origin: string) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
    return this.send('GET', path, undefined, headers);
  }

  async post(path: string, form: Record<string, string>): Promise<{ status: number; headers: Headers; text: string }> {
    return this.send('POST', path, new URLSearchParams(form).toString());
  }

  /** The form token the last page carried. */
  static csrfOf(html: string): string {
    const found = /name="csrf" value="([^"]*)"/.exec(html)?.[1];
    assert.ok(found !== undefined, 'the page has a form token');
    return found;
  }

  /** Fills the login form (opened at `formPath`) and sends it; the answer, whatever it is. */
  async submitLogin(username: string, password: string, formPath = '/admin/login', extra: Record<string, string> = {}) {
    const form = await this.get(formPath);
    return this.post('/admin/login', { csrf: Browser.csrfOf(form.text), username, password, ...extra });
  }

  /** Signs in through the login form; returns the dashboard's form token. */
  async logIn(username: string, password: string): Promise<string> {
    const answer = await this.submitLogin(username, password);
    assert.equal(answer.status, 303, answer.text);
    const dashboard = await this.get('/admin/');
    assert.equal(dashboard.status, 200, dashboard.text);
    return Browser.csrfOf(dashboard.text);
  }

  private async send(method: string, path: string, body: string | undefined, extra: Record<string, string> = {}) {
    const headers: Record<string, string> = { ...extra };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(`${this.origin}${path}`, { method, headers, body, redirect: 'manual' });
    this.setCookies = response.headers.getSetCookie();
    for (const line of this.setCookies) {
      const [pair = ''] = line.split(';');
      const equals = pair.indexOf('=');
      const name = pair.slice(0, equals);
      const value = pair.slice(equals + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, text: await response.text() };
  }
}
