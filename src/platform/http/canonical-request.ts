/**
 * JSON text that is the same for every spelling of one value: object keys sorted at every depth,
 * numbers as the parser read them (so `1.0`, `1` and `1e0`, which JSON.parse and the validation
 * schemas read as one number, print alike). Made as text, never as a new object, so a key such as
 * `__proto__` stays a key.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const fields = Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A URL's path with its query parameters sorted by name, matched case-insensitively as the
 * validation matches them (platform/http/validate.ts); values stay as sent.
 */
export function canonicalUrl(originalUrl: string): string {
  const url = new URL(originalUrl, 'http://request.invalid');
  const params = [...url.searchParams].map(([k, v]) => [k.toLowerCase(), v] as const);
  params.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return params.length ? `${url.pathname}?${new URLSearchParams(params as [string, string][]).toString()}` : url.pathname;
}
