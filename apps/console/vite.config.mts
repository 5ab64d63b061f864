/// <reference types='vitest' />
import { fileURLToPath, URL } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const apiTarget = process.env.API_URL ?? 'http://127.0.0.1:8080';

export default defineConfig(() => ({
  root: import.meta.dirname,
  cacheDir: '../../node_modules/.vite/apps/console',
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    port: 4200,
    host: '127.0.0.1',
    proxy: { '/api': { target: apiTarget, changeOrigin: true } },
  },
  preview: {
    port: 4300,
    host: '127.0.0.1',
    proxy: { '/api': { target: apiTarget, changeOrigin: true } },
  },
  plugins: [react()],
  build: {
    outDir: '../../dist/apps/console',
    emptyOutDir: true,
    manifest: true,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1200,
  },
  test: {
    name: '@fleetdesk/console',
    watch: false,
    globals: true,
    environment: 'jsdom',
    setupFiles: ['./src/test-setup.ts'],
    testTimeout: 30000,
    include: ['src/**/*.{test,spec}.{ts,tsx}'],
    reporters: ['default'],
    css: false,
  },
}));
