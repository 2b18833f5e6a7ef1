import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';

// main: the Electron main process plus the Node entries it spawns (engine/child): the job worker, the lab task and a
// world-encoder ensemble's member build;
// preload: CommonJS, as sandboxed preloads must be.
export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: {
          index: resolve('electron/main/index.ts'),
          worker: resolve('engine/worker/main.ts'),
          'lab-task': resolve('engine/api/lab-task.ts'),
          'encoder-member': resolve('engine/image/world-encoder/member.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve('electron/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'renderer',
    build: { rollupOptions: { input: { index: resolve('renderer/index.html') } } },
    plugins: [vue()],
  },
});
