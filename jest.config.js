/** Tests share one private redis-server started by the global setup (unless REDIS_URL is set). */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // ccxt's CommonJS build requires these ESM-only packages; jest's runtime cannot (before Node 24.9)
    '/node_modules/(@noble|@scure)/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(.+/node_modules/)?(@noble|@scure)/)'],
};
