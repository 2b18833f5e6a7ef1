import { defineConfig } from 'vitest/config';

// Unit, integration and end-to-end tests all live in tests/; e2e ones drive Debian Chromium.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['tests/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The Electron main process is tested with `electron` mocked; electron-store must see that mock too.
    server: { deps: { inline: ['electron-store', 'conf'] } },
  },
});
