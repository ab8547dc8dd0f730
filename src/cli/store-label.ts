import type { Config } from '../config/config.js';
import { sqliteFile } from '../store/create-store.js';

/** A database URL with its password removed, for messages; the URL itself when it does not parse. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(HEDDLE_DATABASE_URL, unparseable)';
  }
}

/** Which store a command works on: `SQLite <file>` or `PostgreSQL <url without password>`. */
export function describeStore(config: Pick<Config, 'dataDir' | 'databaseUrl'>): string {
  return config.databaseUrl ? `PostgreSQL ${redactUrl(config.databaseUrl)}` : `SQLite ${sqliteFile(config)}`;
}
