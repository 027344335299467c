import { defineConfig } from 'vite';

/**
 * The console: a static single-page app built by `vite build console` (root =
 * this folder). Relative asset paths, so the same build works at `/` locally and behind
 * CloudFront; every dependency is bundled (no CDN at run time).
 */
export default defineConfig({
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
});
