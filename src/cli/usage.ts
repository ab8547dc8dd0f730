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
  project export --entity E --project P [--out FILE]
                                          dump every row of a project (any store) as JSON Lines
  project import --entity E --project P [--in FILE]
                                          load a dump into this store's empty project of that id
  help                                    this text

Settings are HEDDLE_* environment variables (README "Configuration").`;

/** A command line Heddle does not understand: printed with exit code 2. */
export class UsageError extends Error {}
