import { ConfigError, type Config } from "./config.js";

/**
 * Start-up failures an operator fixes with a setting, as the one line (ConfigError)
 * that names it: Node's own errors name neither the variable nor what to do.
 */

function codeOf(error: unknown): string {
  return error instanceof Error && "code" in error ? String(error.code) : "";
}

/** Why the server cannot listen on HOST:PORT; other errors as they are. */
export function listenFailure<E>(error: E, config: Pick<Config, "host" | "port">): E | ConfigError {
  const { host, port } = config;
  switch (codeOf(error)) {
    case "EADDRINUSE":
      return new ConfigError(`PORT: port ${port} on ${host} is already in use (another server?); set PORT to a free port, or PORT=0 to pick one`);
    case "EACCES":
      return new ConfigError(`PORT: not allowed to listen on port ${port} (ports below 1024 need privileges); set PORT to 1024 or above, with a reverse proxy in front (docs/deploy.md)`);
    case "EADDRNOTAVAIL":
      return new ConfigError(`HOST: ${host} is not an address of this machine; set HOST to one of its addresses, or 0.0.0.0 for all of them`);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new ConfigError(`HOST: "${host}" does not resolve to an address; set HOST to an IP address such as 127.0.0.1 or 0.0.0.0`);
    default:
      return error;
  }
}

/** Why the uploads folder cannot be created; other errors as they are. */
export function filesDirFailure(error: unknown, dir: string): unknown {
  if (!/^(EACCES|EPERM|EROFS|ENOTDIR|EEXIST|ENOSPC|ELOOP|ENAMETOOLONG)$/.test(codeOf(error))) return error;
  return new ConfigError(
    `BLOC_FILES_DIR: cannot create the uploads folder ${dir}: ${(error as Error).message}; ` +
    "check that its parent is writable, or set BLOC_FILES_DIR elsewhere",
  );
}
