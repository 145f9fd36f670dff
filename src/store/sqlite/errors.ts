import { ConflictError, NotFoundError, StoreUnavailableError } from "../../domain/errors.js";

/**
 * A database that cannot be written now: a full disk, a file or folder made read-only,
 * an I/O error, a file that cannot be opened again (extended codes included, e.g.
 * SQLITE_IOERR_FSYNC). SQLITE_BUSY is not one: it is another writer, not the store.
 */
const UNWRITABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN)(_|$)/;

/**
 * SQLite's refusals as the domain's errors, at the engine's boundary: a key that is
 * taken is a conflict, a reference to a row that does not exist names nothing, a
 * store that cannot be written is unavailable (503, try again). Anything else is the
 * engine's failure and stays as it is.
 */
export function translate(error: unknown): unknown {
  if (!(error instanceof Error) || !("code" in error)) return error;
  if (typeof error.code === "string" && UNWRITABLE.test(error.code)) return new StoreUnavailableError(undefined, { cause: error });
  switch (error.code) {
    case "SQLITE_CONSTRAINT_PRIMARYKEY":
    case "SQLITE_CONSTRAINT_UNIQUE":
      return new ConflictError("already exists");
    case "SQLITE_CONSTRAINT_FOREIGNKEY":
      return new NotFoundError("a user, role, bloc or module named here does not exist");
    default:
      return error;
  }
}
