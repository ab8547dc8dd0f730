export const USAGE = `Usage: heddle <command>
  serve                                   start the server
  keys create --entity E [--user U] [--entity-admin] [--admin]
                                          create an API key (printed once); --entity-admin lets the
                                          user manage the entity's keys, --admin makes an instance admin key
  keys list                               list keys (never their secrets)
  keys revoke ID                          revoke a key
  export --project E/P [--format jsonl|csv] [--query JSON] [--filter JSON] [--sort-by JSON] [--out FILE]
                                          export a project's calls with feedback and costs,
                                          read straight from the store (docs/export.md)
  db distribute [--dry-run]               shard a PostgreSQL store by project on Citus
                                          (docs/scaling.md); --dry-run prints the statements
  help                                    this text

Settings are HEDDLE_* environment variables (README "Configuration").`;

/** A command line Heddle does not understand: printed with exit code 2. */
export class UsageError extends Error {}
