/**
 * Fresh PostgreSQL databases for tests. When TEST_DATABASE_URL is set (the test runner sets it to
 * the throw-away cluster it started), each call makes a new, empty database there; otherwise tests
 * run on SQLite and this returns undefined.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';

/** A database made for one test server. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The PostgreSQL cluster the suite runs against, if any. */
export function testClusterUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

async function admin<T>(clusterUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database on the suite's cluster; undefined when the suite runs on SQLite. */
export async function createTestDatabase(): Promise<TestDatabase | undefined> {
  const clusterUrl = testClusterUrl();
  if (!clusterUrl) return undefined;
  const name = `checkout_test_${randomBytes(6).toString('hex')}`;
  await admin(clusterUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin(clusterUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * The same database reached through the server's Unix-domain socket instead of TCP, as an operator
 * whose PostgreSQL runs on the same machine connects (`?host=` names the socket's directory);
 * undefined when the server's socket is not on this machine (a database elsewhere, a container).
 */
export async function socketUrlOf(databaseUrl: string): Promise<string | undefined> {
  const { directory, port } = await admin(databaseUrl, async (client) => ({
    directory: (await client.query<{ d: string }>('SELECT current_setting($1) AS d', ['unix_socket_directories'])).rows[0]!.d.split(',')[0]!.trim(),
    port: (await client.query<{ p: string }>('SELECT current_setting($1) AS p', ['port'])).rows[0]!.p,
  }));
  if (!directory.startsWith('/') || !fs.existsSync(path.join(directory, `.s.PGSQL.${port}`))) return undefined;
  const url = new URL(databaseUrl);
  url.hostname = 'localhost';
  url.port = port;
  url.searchParams.set('host', directory);
  return url.toString();
}
