import { ConflictError, NotFoundError } from "../../domain/errors.js";

/**
 * SQLite's refusals as the domain's errors, at the engine's boundary: a key that is
 * taken is a conflict, a reference to a row that does not exist names nothing.
 * Anything else is the engine's failure and stays as it is.
 */
export function translate(error: unknown): unknown {
  if (!(error instanceof Error) || !("code" in error)) return error;
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
