/**
 * Builds the widget into one ES module (Lit and the QR encoder inside) at
 * dist/widget/crypto-checkout.js (with a chunk per language besides English) and the payer page's own
 * script and CSS at dist/hosted/pay.<hash>.js and
 * dist/hosted/pay.css (inlined into the page by the server, which finds the hashed script). Prints the gzipped sizes
 * against the 30 KiB budget and fails the build when the widget goes over it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import { renderPayPage } from './api/checkout/pay-page.ts';
import { LOCALES } from './widget/i18n/locales.ts';

/** The payer page's budget: BTCPay's ships about 167 KiB gzipped, ours at most this. */
const BUDGET_BYTES = 30 * 1024;
const WIDGET = 'widget/crypto-checkout.js';
const PAY_SCRIPT = /^hosted\/pay\.[A-Za-z0-9_-]{8,}\.js$/;
const LOCALE_CHUNK = /^widget\/locales\/[a-zA-Z-]+\.[A-Za-z0-9_-]{8,}\.js$/;

// A typical open bitcoin payment, priced in a fiat currency (the larger page), to measure the server-rendered HTML of /pay.
const SAMPLE_PAYMENT = {
  id: '1d69ab2b-8b5b-4839-b5c3-9aa387ac5e66',
  status: 'OPEN',
  amount: '0.01000000',
  amountDue: '0.01000000',
  totalReceivedAmount: '0.00000000',
  asset: { short: 'BTC', network: 'bitcoin', name: 'Bitcoin', logoUrl: 'https://pay.example/logos/btc.svg', decimals: 8 },
  addressTo: 'bc1qwq7l48zkjdu47c26fvkjtv64xpthcajw3mw55z',
  destTag: null,
  paymentUri: 'bitcoin:bc1qwq7l48zkjdu47c26fvkjtv64xpthcajw3mw55z?amount=0.01',
  confirmsNeeded: 2,
  timeout: 3600,
  expiresAt: '2026-11-22T03:53:01.987Z',
  createdAt: '2026-11-22T02:53:01.987Z',
  invoice: 'INV-1042',
  checkoutUrl: 'https://shop.example/thanks',
  merchant: { name: 'Demo Store', siteUrl: 'https://shop.example', logoUrl: 'https://shop.example/logo.svg' },
  transactions: [],
  // The default start runs simulated networks, whose pages carry the test-network notice.
  exception: null,
  overpaidAmount: null,
  refund: null,
  testNetwork: true,
  price: { amount: '640.00', currency: 'USD' },
  rate: { value: '64000', currency: 'USD', sources: ['coinbase', 'kraken', 'bitstamp'] as string[], at: '2026-11-22T02:52:30.000Z' },
  serverTime: '2026-11-22T02:53:01.987Z',
} as const;

const gzipSize = (source: string | Uint8Array) => gzipSync(source, { level: 9 }).length;
// What a browser sending `Accept-Encoding: br, gzip` gets: the files' brotli copies (quality 11, made
// below) and the page itself compressed as it is served (quality 5, send-compressed.ts).
const brotliSize = (source: string | Uint8Array, quality: number) => brotliCompressSync(source, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } }).length;

/** The largest asset logo /pay shows (the merchant's own logo comes from the merchant). */
function largestLogo(): number {
  const dir = 'api/networks/logos';
  return Math.max(0, ...fs.readdirSync(dir).map((name) => gzipSize(fs.readFileSync(`${dir}/${name}`))));
}
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function sizeBudget(): Plugin {
  return {
    name: 'checkout-size-budget',
    apply: 'build',
    enforce: 'post',
    // Only our two folders: dist/ also holds other builds (dist/client), which emptyOutDir would wipe.
    buildStart() {
      for (const dir of ['dist/widget', 'dist/hosted']) fs.rmSync(dir, { recursive: true, force: true });
    },
    generateBundle(_options, bundle) {
      const sizes = new Map<string, number>();
      const brotli = new Map<string, number>();
      for (const [fileName, output] of Object.entries(bundle)) {
        const source = output.type === 'chunk' ? output.code : output.source;
        sizes.set(fileName, gzipSize(source));
        brotli.set(fileName, brotliSize(source, 11));
      }
      // One chunk per language besides English (the widget fetches only the one it shows).
      const localeChunks = [...sizes.keys()].filter((name) => LOCALE_CHUNK.test(name));
      const unexpected = [...sizes.keys()].filter((name) => ![WIDGET, 'hosted/pay.css'].includes(name) && !PAY_SCRIPT.test(name) && !localeChunks.includes(name));
      if (unexpected.length > 0) this.error(`the build must emit exactly the widget, its language chunks and the hosted page's two files; it also emitted ${unexpected.join(', ')}`);
      if (localeChunks.length !== LOCALES.length - 1) this.error(`expected ${LOCALES.length - 1} language chunks, got ${localeChunks.join(', ')}`);

      const largestLocale = Math.max(...localeChunks.map((name) => sizes.get(name) ?? 0));
      const widget = (sizes.get(WIDGET) ?? 0) + largestLocale;
      const html = gzipSize(renderPayPage({ ...SAMPLE_PAYMENT, transactions: [] }));
      const logo = largestLogo();
      const payScript = [...sizes.keys()].find((name) => PAY_SCRIPT.test(name));
      const page = widget + (payScript ? sizes.get(payScript)! : 0) + (sizes.get('hosted/pay.css') ?? 0) + html + logo;
      const largestLocaleBr = Math.max(...localeChunks.map((name) => brotli.get(name) ?? 0));
      const pageHtml = renderPayPage({ ...SAMPLE_PAYMENT, transactions: [] });
      const onTheWire =
        (brotli.get(WIDGET) ?? 0) + largestLocaleBr + (payScript ? brotli.get(payScript)! : 0) + (brotli.get('hosted/pay.css') ?? 0) + brotliSize(pageHtml, 5) + logo;
      const lines = [
        `gzip sizes (budget ${kib(BUDGET_BYTES)}):`,
        `  ${WIDGET.padEnd(28)} ${kib(sizes.get(WIDGET) ?? 0).padStart(9)}`,
        `  largest language chunk       ${kib(largestLocale).padStart(9)}`,
        `  widget in any language       ${kib(widget).padStart(9)}  ${widget <= BUDGET_BYTES ? 'within budget' : 'OVER BUDGET'}`,
        `  hosted/pay.<hash>.js         ${kib(payScript ? sizes.get(payScript)! : 0).padStart(9)}`,
        `  hosted/pay.css               ${kib(sizes.get('hosted/pay.css') ?? 0).padStart(9)}`,
        `  /pay HTML (sample payment)   ${kib(html).padStart(9)}`,
        `  asset logo (largest)         ${kib(logo).padStart(9)}`,
        `  everything /pay loads        ${kib(page).padStart(9)}  (gzip, for a client without brotli; the budget is counted as browsers fetch it, below)`,
        `  the same on the wire (br)    ${kib(onTheWire).padStart(9)}  ${onTheWire <= BUDGET_BYTES ? 'within budget' : 'OVER BUDGET'}`,
      ];
      process.stdout.write(`\n${lines.join('\n')}\n\n`);
      if (widget > BUDGET_BYTES) this.error(`${WIDGET} with its largest language is ${kib(widget)} gzipped, over the ${kib(BUDGET_BYTES)} budget`);
    },
    // A brotli and a gzip copy beside each file, for the server to send as the browser accepts.
    writeBundle(options, bundle) {
      for (const fileName of Object.keys(bundle)) {
        const file = path.join(options.dir ?? 'dist', fileName);
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
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
    sourcemap: false,
    reportCompressedSize: false,
    modulePreload: false,
    cssCodeSplit: true,
    // Not lib mode: that leaves whitespace in ES output for the sake of tree-shaking, which a
    // finished bundle loaded by <script type="module"> does not need.
    rolldownOptions: {
      input: { 'widget/crypto-checkout': 'widget/crypto-checkout.ts', 'hosted/pay': 'hosted/pay.ts' },
      // The language chunks import the few helpers they share with the widget from the widget itself.
      preserveEntrySignatures: 'allow-extension',
      output: {
        format: 'es',
        // The widget keeps its name (merchant pages link it); the page script carries its hash.
        entryFileNames: (chunk) => (chunk.name === 'hosted/pay' ? '[name].[hash].js' : '[name].js'),
        // Language chunks carry their content hash, so the server caches them immutable.
        chunkFileNames: 'widget/locales/[name].[hash].js',
        assetFileNames: 'hosted/[name][extname]',
      },
    },
  },
  plugins: [sizeBudget()],
});
