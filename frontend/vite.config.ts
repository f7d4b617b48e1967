/// <reference types="vitest/config" />
import { availableParallelism } from 'node:os';
import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const backend = `http://127.0.0.1:${process.env.SAMPAN_PORT ?? '8000'}`;
const proxied = ['/api', '/healthz', '/admin', '/static'];

export default defineConfig({
  base: '/',
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: Object.fromEntries(proxied.map((prefix) => [prefix, { target: backend, changeOrigin: false }])),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    css: false,
    include: ['src/**/*.test.{ts,tsx}'],
    // jsdom renders of the larger forms take several seconds on a loaded 2-core CI machine
    testTimeout: 30000,
    // Vitest's default leaves a core to its main process (one worker on a 2-core machine), which
    // is nearly idle while the workers render: a worker per core runs the files about twice as fast.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
