import { loadConfig } from '../../src/platform/config/env';

const base = { JWT_SECRET: 'test-secret-0123456789abcdef' };

describe('REDIS_CLUSTER_NAT_MAP', () => {
  it('maps each announced node address to the address to reach it by', () => {
    const config = loadConfig({ ...base, REDIS_CLUSTER_NAT_MAP: '10.0.0.5:6379=127.0.0.1:7001,10.0.0.6:6379=proxy.local:7002' });
    expect(config.redisClusterNatMap).toEqual({
      '10.0.0.5:6379': { host: '127.0.0.1', port: 7001 },
      '10.0.0.6:6379': { host: 'proxy.local', port: 7002 },
    });
  });

  it('is empty when unset', () => {
    expect(loadConfig(base).redisClusterNatMap).toEqual({});
  });

  it.each(['10.0.0.5:6379', '10.0.0.5=127.0.0.1:7001', '10.0.0.5:6379=127.0.0.1:7001,', 'a:1=b:x'])('refuses %s at boot', (value) => {
    expect(() => loadConfig({ ...base, REDIS_CLUSTER_NAT_MAP: value })).toThrow(/REDIS_CLUSTER_NAT_MAP/);
  });
});
