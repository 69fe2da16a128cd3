/**
 * Builds the merchant dashboard (dashboard/, Lit) into dist/dashboard/: one script and one style
 * sheet, each under its content hash (served immutable), each with a brotli and a gzip copy. Prints
 * the first load's gzipped weight against the 60 KiB budget (CONTRACT.md section 18) and fails the
 * build over it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const BUDGET_BYTES = 60 * 1024;
const OUT = 'dist/dashboard';
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function budgetAndCompression(): Plugin {
  return {
    name: 'dashboard-budget',
    apply: 'build',
    enforce: 'post',
    buildStart() {
      fs.rmSync(OUT, { recursive: true, force: true });
    },
    generateBundle(_options, bundle) {
      let total = 0;
      const lines = ['dashboard gzip sizes (budget 60 KiB for the first load, with the HTML shell):'];
      for (const [name, output] of Object.entries(bundle)) {
        const size = gzipSync(output.type === 'chunk' ? output.code : output.source, { level: 9 }).length;
        total += size;
        lines.push(`  ${name.padEnd(32)} ${kib(size).padStart(9)}`);
      }
      lines.push(`  ${'everything /dashboard loads'.padEnd(32)} ${kib(total).padStart(9)}  ${total <= BUDGET_BYTES ? 'within budget' : 'OVER BUDGET'}`);
      process.stdout.write(`\n${lines.join('\n')}\n\n`);
      if (total > BUDGET_BYTES) this.error(`the dashboard's first load is ${kib(total)} gzipped, over the ${kib(BUDGET_BYTES)} budget`);
    },
    writeBundle(options, bundle) {
      for (const fileName of Object.keys(bundle)) {
        const file = path.join(options.dir ?? OUT, fileName);
        const bytes = fs.readFileSync(file);
        fs.writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
        fs.writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: OUT,
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
    sourcemap: false,
    reportCompressedSize: false,
    modulePreload: false,
    rolldownOptions: {
      input: { app: 'dashboard/main.ts' },
      output: { format: 'es', entryFileNames: '[name].[hash].js', chunkFileNames: '[name].[hash].js', assetFileNames: '[name].[hash][extname]' },
    },
  },
  plugins: [budgetAndCompression()],
});
