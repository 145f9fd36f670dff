import { ConfigError } from "../../config.js";

/** The file system's and SQLite's refusals that a path or its permissions cause, not the data. */
const PATH_CODES = /^(EACCES|EPERM|EROFS|ENOTDIR|EISDIR|ENOENT|EEXIST|ENOSPC|ELOOP|ENAMETOOLONG|SQLITE_CANTOPEN\w*|SQLITE_READONLY\w*|SQLITE_PERM|SQLITE_NOTADB)$/;

/**
 * A SQLite file that cannot be opened (a folder that is not writable, a path through a
 * file, a file that is not a database) is the operator's to fix: one line naming
 * DATABASE_URL and the resolved path, since SQLite's own "unable to open database file"
 * names neither. Other errors stay as they are.
 */
export function unopenable(error: unknown, file: string): ConfigError | undefined {
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  if (!PATH_CODES.test(code)) return undefined;
  return new ConfigError(
    `DATABASE_URL: cannot open the SQLite database ${file}: ${(error as Error).message}; ` +
    "check that its folder is writable, or point DATABASE_URL elsewhere (sqlite:/path/to/bloc.db)",
  );
}
