/**
 * @module The repository root, found from a module's folder, so a path into it (dist/) is the same
 * whether the module runs from source (api/) or compiled (dist/server/api/).
 */
import fs from 'node:fs';
import path from 'node:path';

/** The nearest folder at or above `dir` that holds package.json. */
export function findProjectRoot(dir: string): string {
  for (let current = dir; ; current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, 'package.json'))) return current;
    if (path.dirname(current) === current) throw new Error(`no package.json at or above ${dir}`);
  }
}
