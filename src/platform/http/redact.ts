const SECRET_PARAMS = /^(password|pass|pwd|token|access_token|api_key|secret)$/i;

/** The URL with the values of secret-looking query parameters replaced, for logs. */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const params = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      let key: string;
      try {
        key = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' ')).replace(/\[\]$/, '');
      } catch {
        return `${pair.slice(0, eq)}=[redacted]`;
      }
      return SECRET_PARAMS.test(key) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    });
  return `${url.slice(0, query)}?${params.join('&')}`;
}
