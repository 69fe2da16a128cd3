/** A browser's calls to the dashboard's JSON API, keeping its session cookie like a browser would. */
import { runCli } from '../../api/cli/cli.ts';
import type { TestServer } from './test-server.ts';

/** A dashboard response: status, headers and parsed body. */
export interface DashboardResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Runs the operator's CLI in this process against the test server's store; returns its exit code and output. */
export async function operatorCli(server: TestServer, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const saved = { DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL, SERVER_KEY: process.env.SERVER_KEY };
  process.env.DATA_DIR = server.dataDir;
  process.env.DATABASE_URL = server.services.config.databaseUrl ?? '';
  // Configuration asks for one with DATABASE_URL; the user commands seal nothing with it.
  process.env.SERVER_KEY = '0'.repeat(64);
  let stdout = '';
  let stderr = '';
  try {
    const code = await runCli(argv, (t) => (stdout += t), (t) => (stderr += t));
    return { code, stdout, stderr };
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** Creates a dashboard user through the CLI; returns the user and the generated password. */
export async function createUser(server: TestServer, merchantId: string, email: string, role: 'owner' | 'viewer') {
  const run = await operatorCli(server, ['user', 'create', '--merchant', merchantId, '--email', email, '--role', role, '--json']);
  if (run.code !== 0) throw new Error(`user create failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { user: { id: string; merchantId: string; email: string; role: string; createdAt: string }; password: string };
}

/** A browser on the dashboard: its cookie and CSRF token. */
export function dashboardClient(server: Pick<TestServer, 'url'>) {
  let cookie: string | undefined;
  let csrfToken: string | undefined;

  async function request<T = any>(method: string, path: string, options: { body?: unknown; csrf?: string | null; origin?: string | null; raw?: string; contentType?: string; headers?: Record<string, string> } = {}): Promise<DashboardResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (cookie) headers.Cookie = cookie;
    const token = options.csrf === undefined ? csrfToken : options.csrf;
    if (token) headers['X-CSRF-Token'] = token;
    // Browsers send Origin on every POST, PATCH and DELETE.
    const origin = options.origin === undefined ? server.url : options.origin;
    if (origin && method !== 'GET') headers.Origin = origin;
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
    const response = await fetch(`${server.url}/dashboard/api${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) {
      const [pair = ''] = setCookie.split(';');
      cookie = pair.endsWith('=') ? undefined : pair;
    }
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return { status: response.status, headers: response.headers, body: (type.includes('json') && text ? JSON.parse(text) : text) as T };
  }

  return {
    request,
    get: <T = any>(path: string) => request<T>('GET', path),
    /** Signs in; on success keeps the cookie and the CSRF token. */
    async signIn(email: string, password: string): Promise<DashboardResponse> {
      const response = await request<any>('POST', '/session', { body: { email, password } });
      if (response.status === 200) csrfToken = response.body.csrfToken;
      return response;
    },
    /** The session cookie as the browser holds it (name=value). */
    cookie: () => cookie,
    /** Puts a cookie back (a copied cookie replayed). */
    useCookie(value: string | undefined) {
      cookie = value;
    },
    csrf: () => csrfToken,
  };
}
