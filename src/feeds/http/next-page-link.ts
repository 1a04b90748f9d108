import type { Request, Response } from 'express';

/**
 * `Link: <same request with before_id=N>; rel="next"` (RFC 8288) when another page follows; the
 * trade feeds keep the standards' bodies and page through this header.
 */
export function linkNextPage(req: Request, res: Response, nextBeforeId: number | null): void {
  if (nextBeforeId === null) return;
  const url = new URL(req.originalUrl, 'http://local');
  // query names match case-insensitively: drop any spelling of before_id before setting it
  for (const name of [...url.searchParams.keys()]) if (name.toLowerCase() === 'before_id') url.searchParams.delete(name);
  url.searchParams.set('before_id', String(nextBeforeId));
  res.setHeader('Link', `<${url.pathname}${url.search}>; rel="next"`);
}
