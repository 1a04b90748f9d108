import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['jest.config.js', 'dist/**', 'node_modules/**', 'coverage/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // the live market page: plain ES modules that run in the browser
    files: ['public/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        ['window', 'document', 'location', 'fetch', 'URLSearchParams', 'WebSocket', 'requestAnimationFrame', 'sessionStorage',
          'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'console'].map((name) => [name, 'readonly']),
      ),
    },
  },
);
