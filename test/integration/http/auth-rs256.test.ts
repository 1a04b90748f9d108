import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { TEST_SECRET, createApp, testContext } from '../../support/harness';

describe('RS256 tokens (JWT_PUBLIC_KEY)', () => {
  it('accepts a token signed with the private key and refuses an HS256 token, even one signed with the public key', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const ctx = await testContext({ JWT_PUBLIC_KEY: pem });
    try {
      const app = createApp(ctx);
      const good = jwt.sign({ sub: 'alice' }, privateKey, { algorithm: 'RS256', expiresIn: '1h' });
      const ok = await request(app).get('/api/wallet/balances').set('Authorization', `Bearer ${good}`);
      expect(ok.status).toBe(200);
      for (const forged of [
        jwt.sign({ sub: 'alice' }, TEST_SECRET, { algorithm: 'HS256', expiresIn: '1h' }),
        jwt.sign({ sub: 'alice' }, pem, { algorithm: 'HS256', expiresIn: '1h' }),
      ]) {
        const r = await request(app).get('/api/wallet/balances').set('Authorization', `Bearer ${forged}`);
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe('UNAUTHORIZED');
      }
    } finally {
      await ctx.cleanup();
    }
  });
});
