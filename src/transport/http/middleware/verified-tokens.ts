import type { JwtPayload } from 'jsonwebtoken';

/** Tokens kept at most: a few per active user of one api process, each a few hundred bytes. */
const DEFAULT_CAPACITY = 10_000;

/**
 * Bearer tokens whose signature this process has verified, with their claims: a client sends the
 * same token with every request, and checking its signature again (HMAC or RSA, plus decoding the
 * JWT twice inside express-jwt and a setImmediate before the route) was a tenth of an order's CPU
 * in the api (docs/performance.md#http). The signature of a given string against the process's one
 * key cannot change, but time can: a kept token is handed out only while its `exp` and `nbf` still
 * hold as jsonwebtoken would judge them now (no clock tolerance), and dropped otherwise, so the
 * full check then answers with its own reason. The oldest token goes when the map is full.
 */
export class VerifiedTokens {
  private readonly byToken = new Map<string, JwtPayload>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** The claims of `token` if it was verified before and is still within its validity window. */
  get(token: string, nowSeconds: number): JwtPayload | undefined {
    const claims = this.byToken.get(token);
    if (!claims) return undefined;
    const live = typeof claims.exp === 'number' && nowSeconds < claims.exp && !(typeof claims.nbf === 'number' && claims.nbf > nowSeconds);
    if (live) return claims;
    this.byToken.delete(token);
    return undefined;
  }

  /** Keeps a token whose signature and claims were just verified. */
  add(token: string, claims: JwtPayload): void {
    if (this.byToken.size >= this.capacity) this.byToken.delete(this.byToken.keys().next().value as string);
    this.byToken.set(token, Object.freeze(claims));
  }

  get size(): number {
    return this.byToken.size;
  }
}
