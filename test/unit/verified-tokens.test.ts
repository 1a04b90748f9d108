import { VerifiedTokens } from '../../src/transport/http/middleware/verified-tokens';

describe('VerifiedTokens', () => {
  const claims = (exp: number, nbf?: number) => ({ sub: 'u1', iat: 1000, exp, ...(nbf === undefined ? {} : { nbf }) });

  it('hands a kept token out only while exp is ahead and nbf is reached, as jsonwebtoken judges them', () => {
    const kept = new VerifiedTokens();
    kept.add('a', claims(2000));
    expect(kept.get('a', 1999)).toMatchObject({ sub: 'u1' });
    // jsonwebtoken: expired once now >= exp
    expect(kept.get('a', 2000)).toBeUndefined();
    // and dropped, not just hidden
    expect(kept.get('a', 1500)).toBeUndefined();
    kept.add('b', claims(2000, 1200));
    expect(kept.get('b', 1100)).toBeUndefined();
    kept.add('b', claims(2000, 1200));
    expect(kept.get('b', 1200)).toMatchObject({ sub: 'u1' });
    expect(kept.get('unknown', 1500)).toBeUndefined();
  });

  it('never keeps a token without a numeric exp', () => {
    const kept = new VerifiedTokens();
    kept.add('noexp', { sub: 'u1', iat: 1000 });
    expect(kept.get('noexp', 1001)).toBeUndefined();
  });

  it('holds at most its capacity, dropping the oldest', () => {
    const kept = new VerifiedTokens(3);
    for (const t of ['t1', 't2', 't3', 't4']) kept.add(t, claims(5000));
    expect(kept.size).toBe(3);
    expect(kept.get('t1', 1500)).toBeUndefined();
    expect(['t2', 't3', 't4'].map((t) => kept.get(t, 1500)?.sub)).toEqual(['u1', 'u1', 'u1']);
  });

  it('hands out claims nobody can change', () => {
    const kept = new VerifiedTokens();
    kept.add('a', claims(2000));
    expect(Object.isFrozen(kept.get('a', 1500))).toBe(true);
  });
});
