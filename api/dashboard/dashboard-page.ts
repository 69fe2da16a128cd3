/**
 * @module The dashboard's one HTML page (every /dashboard path): the built script and style sheet
 * under their hashed names, found once at start, and a Content-Security-Policy that allows scripts
 * and styles only as files from this origin (no inline script, no eval), connections only back here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { html, type SafeHtml } from '../http/html.ts';

/** The built files the page loads. */
export interface DashboardAssets {
  script: string | undefined;
  styles: string | undefined;
}

/** Finds dist/dashboard/app.<hash>.js and .css; undefined each when not built. */
export function loadDashboardAssets(distDir: string): DashboardAssets {
  let names: string[] = [];
  try {
    names = fs.readdirSync(path.join(distDir, 'dashboard'));
  } catch {
    names = [];
  }
  const find = (ext: string) => names.find((n) => new RegExp(`^app\\.[A-Za-z0-9_-]{8,}\\.${ext}$`).test(n));
  const script = find('js');
  const styles = find('css');
  return { script: script && `/dashboard/assets/${script}`, styles: styles && `/dashboard/assets/${styles}` };
}

/** The page's CSP. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The page: a shell the script fills; without it, a sentence that says the dashboard needs JavaScript. */
export function renderDashboardPage(assets: DashboardAssets): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>Dashboard</title>
${assets.styles ? html`<link rel="stylesheet" href="${assets.styles}">` : ''}
${assets.script ? html`<script type="module" src="${assets.script}"></script>` : ''}
</head>
<body>
<dashboard-app><noscript><main><h1>Dashboard</h1><p>The dashboard needs JavaScript.</p></main></noscript></dashboard-app>
</body>
</html>
`;
}
