import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { createDevShim } from './dev/shim.js';

/**
 * `npm run dev` serves the app with a development shim in front of a Heddle server that does not
 * have the session endpoints yet (HEDDLE_URL, default http://127.0.0.1:8080). See dev/shim.ts.
 */
export default defineConfig({
  plugins: [
    react(),
    {
      name: 'heddle-dev-shim',
      configureServer(server) {
        server.middlewares.use(createDevShim({ upstream: process.env.HEDDLE_URL ?? 'http://127.0.0.1:8080' }));
      },
    },
  ],
  build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 700 },
});
