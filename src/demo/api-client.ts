import jwt from 'jsonwebtoken';

/** A non-2xx answer of the API, with the error code when the body has one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** How long a demo token lives, and how often it is signed anew (the API refuses tokens issued over JWT_MAX_AGE_SECONDS ago). */
const TOKEN_LIFETIME_SECONDS = 3600;
const TOKEN_RENEW_MS = 600_000;

/** HS256 tokens for `userId`, as `npm run token` signs them (with iat and exp), signed anew every ten minutes. */
export function renewingToken(secret: string, userId: string, admin = false): () => string {
  let token = '';
  let signedAt = -Infinity;
  return () => {
    if (Date.now() - signedAt >= TOKEN_RENEW_MS) {
      token = jwt.sign(admin ? { role: 'admin' } : {}, secret, { algorithm: 'HS256', subject: userId, expiresIn: TOKEN_LIFETIME_SECONDS });
      signedAt = Date.now();
    }
    return token;
  };
}

/**
 * The public REST API as one user sees it: JSON in and out over fetch (keep-alive pooled by
 * undici), with that user's bearer token on every request.
 */
export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token?: () => string,
  ) {}

  get<T>(path: string, query?: Record<string, string | number | boolean>): Promise<T> {
    return this.call<T>('GET', path, undefined, query);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PUT', path, body);
  }

  delete<T>(path: string, query?: Record<string, string | number | boolean>): Promise<T> {
    return this.call<T>('DELETE', path, undefined, query);
  }

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    query?: Record<string, string | number | boolean>,
  ): Promise<T> {
    const url = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token()}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) {
      const err = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ApiError(res.status, err?.code ?? 'HTTP_' + res.status, `${method} ${path}: ${res.status} ${err?.message ?? text}`);
    }
    return parsed as T;
  }
}
