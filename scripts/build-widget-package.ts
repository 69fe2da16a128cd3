/**
 * The widget as a package for bundler users (`import 'crypto-checkout/widget'`): declarations of
 * the element, its events and attributes (dist/widget-types, from widget/tsconfig.types.json), the
 * React JSX types beside them, and the custom elements manifest (dist/widget/custom-elements.json).
 * Run by `npm run build` after vite has written dist/widget.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TYPES_DIR = path.join(ROOT, 'dist', 'widget-types');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

fs.rmSync(TYPES_DIR, { recursive: true, force: true });
execFileSync(bin('tsc'), ['-p', 'widget/tsconfig.types.json'], { cwd: ROOT, stdio: 'inherit' });
// A declaration file is not emitted by tsc, only checked: copy it with its import as published.
const react = fs.readFileSync(path.join(ROOT, 'widget', 'react.d.ts'), 'utf8').replace("from './crypto-checkout.ts'", "from './crypto-checkout.js'");
fs.writeFileSync(path.join(TYPES_DIR, 'react.d.ts'), react);
execFileSync(bin('cem'), ['analyze', '--config', 'custom-elements-manifest.config.mjs', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
const manifest = path.join(ROOT, 'dist', 'widget', 'custom-elements.json');
if (!fs.existsSync(manifest)) throw new Error('the custom elements manifest was not written');
process.stdout.write(`widget package: ${path.relative(ROOT, TYPES_DIR)}/crypto-checkout.d.ts, react.d.ts, ${path.relative(ROOT, manifest)}\n`);
