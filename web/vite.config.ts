import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** The Heddle server `npm run dev` forwards the API to (its session cookie and CSRF check included). */
const upstream = process.env.HEDDLE_URL ?? 'http://127.0.0.1:8080';

/**
 * `npm run dev` serves the app on port 5173 and forwards every request that is not one of Vite's
 * own (sources, modules, assets) to `HEDDLE_URL`; a page navigation gets the app's index.html.
 */
export default defineConfig({
  server: {
    proxy: {
      '^/(?!src/|@|node_modules/|assets/|index\\.html$).*': {
        target: upstream,
        bypass: (req) => (req.headers.accept?.includes('text/html') ? '/index.html' : undefined),
      },
    },
  },
  plugins: [
    react(),
    {
      // The server sends these copies to clients that accept them (src/plugins/web-app.ts).
      name: 'heddle-precompress',
      apply: 'build',
      writeBundle(options, bundle) {
        const dir = options.dir ?? 'dist';
        for (const name of Object.keys(bundle)) {
          if (!/\.(js|css|html|svg|json)$/.test(name)) continue;
          const file = path.join(dir, name);
          const bytes = fs.readFileSync(file);
          if (bytes.length < 1024) continue;
          fs.writeFileSync(`${file}.gz`, zlib.gzipSync(bytes, { level: 9 }));
          fs.writeFileSync(
            `${file}.br`,
            zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
          );
        }
      },
    },
  ],
  build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 700 },
});
