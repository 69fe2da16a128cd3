/**
 * `npm run lint:openapi`: the OpenAPI document exactly as the service builds it (with and without
 * the simulator's routes), checked by `redocly lint` with the recommended rules as errors
 * (redocly.yaml). Exits non-zero on any finding.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApi } from '../api/openapi.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
try {
  const files = [true, false].map((simulator) => {
    const file = path.join(dir, simulator ? 'openapi-dev.json' : 'openapi-production.json');
    fs.writeFileSync(file, JSON.stringify(buildOpenApi({ publicUrl: 'https://pay.example.org', simulator }), null, 2));
    return file;
  });
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'redocly'), ['lint', ...files, '--format=stylish'], { cwd: ROOT, stdio: 'inherit' });
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
