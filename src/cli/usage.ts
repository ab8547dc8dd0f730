export const USAGE = `Usage: heddle <command>
  serve                                   start the server
  keys create --entity E [--user U] [--role admin|member|viewer] [--entity-admin] [--admin]
                                          create an API key (printed once); --role sets the user's role
                                          in the entity (viewer: read only; --entity-admin is --role admin),
                                          --admin makes an instance admin key
  keys list                               list keys (never their secrets)
  keys revoke ID                          revoke a key
  keys role --entity E --user U --role admin|member|viewer
                                          change a member's role (docs/roles-and-audit.md)
  audit --entity E [--limit N] [--action A]
                                          the entity's audit log, newest first, as JSON lines
  export --project E/P [--format jsonl|csv] [--query JSON] [--filter JSON] [--sort-by JSON] [--out FILE]
                                          export a project's calls with feedback and costs,
                                          read straight from the store (docs/export.md)
  db migrate                              bring the store's schema up to date and exit
  db distribute [--dry-run]               shard a PostgreSQL store by project on Citus
                                          (docs/scaling.md); --dry-run prints the statements
  project export --entity E --project P [--out FILE]
                                          dump every row of a project (any store) as JSON Lines
  project import --entity E --project P [--in FILE]
                                          load a dump into this store's empty project of that id
  help                                    this text

Settings are HEDDLE_* environment variables (docs/configuration.md).`;

/** A command line Heddle does not understand: printed with exit code 2. */
export class UsageError extends Error {}
