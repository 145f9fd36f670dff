import type Database from "better-sqlite3";
import { dropOldValueIndexes, ensureValueIndexes } from "./value-indexes.js";

/**
 * Numbered migrations, applied in order inside one transaction each; the database's
 * `user_version` records the last one applied, so running them again is a no-op.
 * Never edit a released step: add the next one. (Steps 4 and 8 once filled counter
 * tables that step 12 drops; their fills were taken out with the SQL that repeated the
 * domain's counting rules, which changes nothing an upgrade ends with.)
 */
/** Tables whose rows decide who may do what on which bloc, and how blocs look. */
const CONFIG_TABLES = [
  "users", "tokens", "roles", "user_roles", "blocs", "fields", "grants", "role_grants", "restrictions", "modules",
];

/**
 * The columns of tokens whose change a cached token must see: every column but
 * last_used_at. A column added to tokens later joins this list in its own migration.
 */
const TOKEN_CACHED_COLUMNS = "id, user_id, name, hash, expires_at, revoked_at, created_at, scope_permissions, scope_blocs";

/** A step is SQL, or a function for a step whose SQL depends on the rows (one index per field slug). */
type Step = string | ((db: Database.Database) => void);

/**
 * Every field searchable by value without being marked `indexed`: a partial value index
 * per field slug (value-indexes.ts), replacing the full ones only some fields had.
 */
function everyFieldSearchable(db: Database.Database): void {
  dropOldValueIndexes(db);
  ensureValueIndexes(db);
}

const MIGRATIONS: readonly Step[] = [
  `
  CREATE TABLE users (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    created_at TEXT NOT NULL
  );
  CREATE TABLE tokens (
    id         TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id),
    name       TEXT,
    hash       TEXT NOT NULL UNIQUE,
    expires_at TEXT,
    revoked_at TEXT,
    created_at TEXT NOT NULL
  );
  CREATE TABLE blocs (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE fields (
    bloc_id  TEXT NOT NULL REFERENCES blocs(id),
    slug     TEXT NOT NULL,
    name     TEXT NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (bloc_id, slug)
  );
  CREATE TABLE grants (
    bloc_id    TEXT NOT NULL REFERENCES blocs(id),
    user_id    INTEGER NOT NULL REFERENCES users(id),
    can_read   INTEGER NOT NULL,
    can_add    INTEGER NOT NULL,
    can_update INTEGER NOT NULL,
    PRIMARY KEY (bloc_id, user_id)
  );
  CREATE TABLE records (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    bloc_id          TEXT NOT NULL REFERENCES blocs(id),
    created_at       TEXT NOT NULL,
    user_id          TEXT NOT NULL,
    submitted_status INTEGER NOT NULL,
    job_id           TEXT,
    data             TEXT NOT NULL
  );
  -- Serves get-data's order and date windows, and the report's keyset reads.
  CREATE INDEX records_by_bloc_time ON records (bloc_id, created_at, id);
  `,
  // Access control: roles, bloc settings, restrictions, profiles, scoped tokens.
  `
  ALTER TABLE users ADD COLUMN profile TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE tokens ADD COLUMN scope_permissions TEXT;
  ALTER TABLE tokens ADD COLUMN scope_blocs TEXT;
  ALTER TABLE blocs ADD COLUMN open_to_all INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE blocs ADD COLUMN accepting_data INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE blocs ADD COLUMN restriction TEXT NOT NULL DEFAULT 'none' CHECK (restriction IN ('none', 'own', 'hidden'));
  ALTER TABLE fields ADD COLUMN apply_profile_filter INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE grants ADD COLUMN see_hidden INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE roles (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  );
  CREATE TABLE user_roles (
    user_id INTEGER NOT NULL REFERENCES users(id),
    role_id INTEGER NOT NULL REFERENCES roles(id),
    PRIMARY KEY (user_id, role_id)
  );
  CREATE TABLE role_grants (
    bloc_id    TEXT NOT NULL REFERENCES blocs(id),
    role_id    INTEGER NOT NULL REFERENCES roles(id),
    can_read   INTEGER NOT NULL,
    can_add    INTEGER NOT NULL,
    can_update INTEGER NOT NULL,
    see_hidden INTEGER NOT NULL,
    PRIMARY KEY (bloc_id, role_id)
  );
  CREATE TABLE restrictions (
    bloc_id TEXT NOT NULL REFERENCES blocs(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    mode    TEXT NOT NULL CHECK (mode IN ('none', 'own', 'hidden')),
    PRIMARY KEY (bloc_id, user_id)
  );
  -- Serves the own-records restriction without scanning other users' records.
  CREATE INDEX records_by_bloc_user_time ON records (bloc_id, user_id, created_at, id);
  `,
  // add-data workflows: field types and rules, modules, scan limits, files, counters.
  `
  ALTER TABLE fields ADD COLUMN type TEXT NOT NULL DEFAULT 'text';
  ALTER TABLE fields ADD COLUMN options TEXT;
  ALTER TABLE fields ADD COLUMN required INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE fields ADD COLUMN unique_values INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE fields ADD COLUMN max_length INTEGER;
  ALTER TABLE fields ADD COLUMN pattern TEXT;
  ALTER TABLE fields ADD COLUMN format TEXT;
  CREATE TABLE modules (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  ALTER TABLE blocs ADD COLUMN module_id INTEGER REFERENCES modules(id);
  ALTER TABLE blocs ADD COLUMN require_job INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE blocs ADD COLUMN scan_limit INTEGER;
  ALTER TABLE blocs ADD COLUMN scan_limit_period TEXT CHECK (scan_limit_period IN ('day', 'week', 'month'));
  CREATE TABLE files (
    ref        TEXT PRIMARY KEY,
    bloc_id    TEXT NOT NULL REFERENCES blocs(id),
    record_id  INTEGER NOT NULL REFERENCES records(id),
    slug       TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    name       TEXT NOT NULL,
    type       TEXT NOT NULL,
    size       INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX files_by_sha ON files (sha256);
  -- Content received by an upload whose record is not written yet: it must not be deleted.
  CREATE TABLE content_holds (
    id         TEXT PRIMARY KEY,
    sha256     TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX content_holds_by_sha ON content_holds (sha256);
  -- The last counter value handed out per autogenerate field, group and rendered text.
  CREATE TABLE sequences (
    bloc_id TEXT NOT NULL REFERENCES blocs(id),
    slug    TEXT NOT NULL,
    grp     TEXT NOT NULL,
    prefix  TEXT NOT NULL,
    suffix  TEXT NOT NULL,
    last    INTEGER NOT NULL,
    PRIMARY KEY (bloc_id, slug, grp, prefix, suffix)
  );
  `,
  // Counters kept in the same transaction as every write, so that counts, value
  // counts and page seeks cost what the answer costs, not what the bloc holds.
  `
  ALTER TABLE fields ADD COLUMN indexed INTEGER NOT NULL DEFAULT 0;
  -- A segment is a set of records some reader sees: '' (all), 'u:<user id>' (one
  -- owner's) or 'p:<slug>:<value>' (those holding one value of a profile-filtered field).
  CREATE TABLE day_counts (
    bloc_id TEXT NOT NULL,
    segment TEXT NOT NULL,
    day     TEXT NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (bloc_id, segment, day)
  ) WITHOUT ROWID;
  CREATE TABLE value_totals (
    bloc_id TEXT NOT NULL,
    segment TEXT NOT NULL,
    slug    TEXT NOT NULL,
    value   TEXT NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (bloc_id, segment, slug, value)
  ) WITHOUT ROWID;
  CREATE INDEX value_totals_top ON value_totals (bloc_id, segment, slug, n DESC, value);
  `,
  // A generation number that every change to users, tokens, blocs or access bumps, by
  // trigger (so no write path can forget it), letting each process cache those safely.
  `
  CREATE TABLE generation (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
  INSERT INTO generation (id, n) VALUES (1, 0);
  ${CONFIG_TABLES.flatMap((table) => ["INSERT", "UPDATE", "DELETE"].map((event) => `
  CREATE TRIGGER ${table}_${event.toLowerCase()}_bumps_generation AFTER ${event} ON ${table}
  BEGIN UPDATE generation SET n = n + 1 WHERE id = 1; END;`)).join("")}
  `,
  // Safe retries and record history, each written in the transaction of the record it is about.
  `
  -- One row per (user, Idempotency-Key) of an add-data that succeeded: the key itself is
  -- never stored, only its SHA-256; the request's hash tells a true repeat from a reuse.
  CREATE TABLE idempotency_keys (
    user_id      TEXT NOT NULL,
    key_hash     TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    record_id    INTEGER NOT NULL REFERENCES records(id),
    replacements TEXT NOT NULL,
    created_ms   INTEGER NOT NULL,
    PRIMARY KEY (user_id, key_hash)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_ms);
  -- What each update changed in a record: {"slug": {"from", "to"}} as JSON text.
  CREATE TABLE record_history (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    bloc_id    TEXT NOT NULL,
    record_id  INTEGER NOT NULL REFERENCES records(id),
    changed_at TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    token_id   TEXT,
    changes    TEXT NOT NULL
  );
  CREATE INDEX record_history_by_record ON record_history (record_id, id);
  `,
  everyFieldSearchable,
  // Values per segment, field and calendar period (day, week, month, year), so that value
  // counts over a date window made of whole periods cost what the answer costs.
  `
  CREATE TABLE period_values (
    bloc_id TEXT NOT NULL,
    segment TEXT NOT NULL,
    slug    TEXT NOT NULL,
    period  TEXT NOT NULL,
    value   TEXT NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (bloc_id, segment, slug, period, value)
  ) WITHOUT ROWID;
  CREATE INDEX period_values_top ON period_values (bloc_id, segment, slug, period, n DESC, value);
  `,
  // When each token was last used (at most once a minute: domain/token-use.ts). Writing it
  // must not bump the generation, or every token's first request each minute would empty
  // every process's cache: the update trigger now names the columns that matter to it.
  `
  ALTER TABLE tokens ADD COLUMN last_used_at TEXT;
  DROP TRIGGER tokens_update_bumps_generation;
  CREATE TRIGGER tokens_update_bumps_generation
  AFTER UPDATE OF ${TOKEN_CACHED_COLUMNS} ON tokens
  BEGIN UPDATE generation SET n = n + 1 WHERE id = 1; END;
  `,
  // Events (domain/events.ts): an outbox written in the transaction of each change, numbered
  // per bloc in commit order; webhooks, one delivery lane per webhook and bloc (claimed by
  // one process at a time through lease_owner/lease_until_ms), and a log of attempts.
  `
  CREATE TABLE event_sequences (
    bloc_id  TEXT PRIMARY KEY,
    last_seq INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE events (
    bloc_id    TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    id         TEXT NOT NULL,
    type       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    record_id  INTEGER,
    data       TEXT NOT NULL,
    PRIMARY KEY (bloc_id, seq)
  );
  CREATE TABLE webhooks (
    id         TEXT PRIMARY KEY,
    url        TEXT NOT NULL,
    blocs      TEXT,
    events     TEXT NOT NULL,
    secret     TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE webhook_lanes (
    webhook_id      TEXT NOT NULL,
    bloc_id         TEXT NOT NULL,
    delivered_seq   INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    first_failed_ms INTEGER,
    next_attempt_ms INTEGER NOT NULL DEFAULT 0,
    lease_owner     TEXT,
    lease_until_ms  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (webhook_id, bloc_id)
  ) WITHOUT ROWID;
  CREATE TABLE webhook_deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id  TEXT NOT NULL,
    bloc_id     TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    event_id    TEXT NOT NULL,
    type        TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    at          TEXT NOT NULL,
    status_code INTEGER,
    error       TEXT,
    duration_ms INTEGER NOT NULL,
    outcome     TEXT NOT NULL
  );
  CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id);
  -- Random keys made once per instance (never copied: a copy makes its own), the same for
  -- every process on it: 'event-ids' seals the event IDs of live streams (domain/stream-ids.ts).
  CREATE TABLE instance_keys (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  INSERT INTO instance_keys (name, value) VALUES ('event-ids', lower(hex(randomblob(32))));
  `,
  // Counters by scope (domain/counting/keys.ts): a scope's records, and its values only
  // where it holds many records and only for values two or more records hold. The
  // counters of before go; the domain counts every bloc again when the store opens
  // (counting/recount.ts), so that no SQL repeats its rules.
  `
  DROP TABLE day_counts;
  DROP TABLE value_totals;
  DROP TABLE period_values;
  CREATE TABLE counter_scopes (
    id      INTEGER PRIMARY KEY,
    bloc_id TEXT NOT NULL,
    segment TEXT NOT NULL,
    period  TEXT NOT NULL,
    n       INTEGER NOT NULL,
    counted INTEGER NOT NULL DEFAULT 0
  );
  CREATE UNIQUE INDEX counter_scopes_key ON counter_scopes (bloc_id, segment, period);
  CREATE TABLE value_counts (
    scope_id INTEGER NOT NULL,
    slug     TEXT NOT NULL,
    value    TEXT NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (scope_id, slug, value)
  ) WITHOUT ROWID;
  -- The values a scope ranks first, read off in order: only counts of two and more.
  CREATE INDEX value_counts_top ON value_counts (scope_id, slug, n DESC, value) WHERE n >= 2;
  `,
  // Accounts (domain/accounts.ts): an email to sign in with (stored trimmed and lower-cased,
  // so the unique index is case-insensitive), a password hash in its own self-describing
  // format (domain/passwords.ts), and when the user was disabled. All nullable, so that a
  // backup made before them restores as users without a password, not disabled.
  // sign_in_attempts: recent sign-in attempts per email (its SHA-256, never the text a client
  // typed there), shared by every process on the file; rows of past windows are deleted.
  `
  ALTER TABLE users ADD COLUMN email TEXT;
  ALTER TABLE users ADD COLUMN password_hash TEXT;
  ALTER TABLE users ADD COLUMN disabled_at TEXT;
  CREATE UNIQUE INDEX users_email ON users (email) WHERE email IS NOT NULL;
  CREATE TABLE sign_in_attempts (
    email_hash TEXT PRIMARY KEY,
    since_ms   INTEGER NOT NULL,
    n          INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX sign_in_attempts_by_age ON sign_in_attempts (since_ms);
  `,
  // Deleting records (domain/record-removal.ts): a `delete` permission in grants; a deleted
  // record moves whole to deleted_records, so that no query over records changes, and moves
  // back on restore with its ID. Its files, idempotency keys and history stay, pointing at
  // an ID that may be in either table: their foreign keys to records go (SQLite drops one
  // only by rebuilding the table). A history entry names what it records (`action`).
  `
  ALTER TABLE grants ADD COLUMN can_delete INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE role_grants ADD COLUMN can_delete INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE deleted_records (
    id               INTEGER PRIMARY KEY,
    bloc_id          TEXT NOT NULL REFERENCES blocs(id),
    created_at       TEXT NOT NULL,
    user_id          TEXT NOT NULL,
    submitted_status INTEGER NOT NULL,
    job_id           TEXT,
    data             TEXT NOT NULL,
    deleted_at       TEXT NOT NULL,
    deleted_by       TEXT NOT NULL
  );
  CREATE INDEX deleted_records_by_bloc ON deleted_records (bloc_id, id);
  CREATE TABLE files_new (
    ref        TEXT PRIMARY KEY,
    bloc_id    TEXT NOT NULL REFERENCES blocs(id),
    record_id  INTEGER NOT NULL,
    slug       TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    name       TEXT NOT NULL,
    type       TEXT NOT NULL,
    size       INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  INSERT INTO files_new SELECT ref, bloc_id, record_id, slug, sha256, name, type, size, created_at FROM files;
  DROP TABLE files;
  ALTER TABLE files_new RENAME TO files;
  CREATE INDEX files_by_sha ON files (sha256);
  CREATE TABLE idempotency_keys_new (
    user_id      TEXT NOT NULL,
    key_hash     TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    record_id    INTEGER NOT NULL,
    replacements TEXT NOT NULL,
    created_ms   INTEGER NOT NULL,
    PRIMARY KEY (user_id, key_hash)
  ) WITHOUT ROWID;
  INSERT INTO idempotency_keys_new SELECT user_id, key_hash, request_hash, record_id, replacements, created_ms FROM idempotency_keys;
  DROP TABLE idempotency_keys;
  ALTER TABLE idempotency_keys_new RENAME TO idempotency_keys;
  CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_ms);
  CREATE TABLE record_history_new (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    bloc_id    TEXT NOT NULL,
    record_id  INTEGER NOT NULL,
    changed_at TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    token_id   TEXT,
    changes    TEXT NOT NULL,
    action     TEXT NOT NULL DEFAULT 'updated' CHECK (action IN ('updated', 'deleted', 'restored'))
  );
  INSERT INTO record_history_new (id, bloc_id, record_id, changed_at, user_id, token_id, changes)
    SELECT id, bloc_id, record_id, changed_at, user_id, token_id, changes FROM record_history;
  DROP TABLE record_history;
  ALTER TABLE record_history_new RENAME TO record_history;
  CREATE INDEX record_history_by_record ON record_history (record_id, id);
  `,
  // A retired field stays as a row, so that its slug is never given again and records'
  // history still names it; NULL (what an older backup restores) is a field in use.
  `
  ALTER TABLE fields ADD COLUMN retired_at TEXT;
  `,
  // value_counts_top kept a scope's values in order of their counts, so that a read of one
  // scope's top values stopped early; but every change of a count moved its entry, and its
  // pages were a third of what a group commit wrote to the WAL. A read of one scope now sorts
  // the scope's counted values, as a read of several always did (docs/performance.md).
  `
  DROP INDEX IF EXISTS value_counts_top;
  `,
];

/** The version at which every field has its value index (for tests of that upgrade). */
export const VALUE_INDEXES_VERSION = MIGRATIONS.indexOf(everyFieldSearchable) + 1;

/** Applies the missing steps up to `target` (all of them unless a test builds an older database). */
export function migrate(db: Database.Database, target = MIGRATIONS.length): void {
  MIGRATIONS.slice(0, target).forEach((step, index) => {
    const version = index + 1;
    // IMMEDIATE takes the write lock before reading the version, so two processes
    // starting on one file cannot both apply the same step.
    db.transaction(() => {
      const current = db.pragma("user_version", { simple: true }) as number;
      if (version <= current) return;
      if (typeof step === "string") db.exec(step);
      else step(db);
      db.pragma(`user_version = ${version}`);
    }).immediate();
  });
}

export const SCHEMA_VERSION = MIGRATIONS.length;
