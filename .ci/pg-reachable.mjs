// Fails (exit 1, one clear line) unless the PostgreSQL server the tests create their
// databases on answers, and its user may create databases; the PostgreSQL run needs both.
// Usage: node .ci/pg-reachable.mjs <server URL>
import postgres from "postgres";

const url = process.argv[2] ?? "";
if (url === "") {
  console.error("pg-reachable: no server URL given");
  process.exit(1);
}
let parsed;
try {
  parsed = new URL(url);
} catch {
  console.error("pg-reachable: the server URL is not a URL (expected postgres://user@host:port/database)");
  process.exit(1);
}
// The URL may carry a password: messages name only where the server is.
const where = `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname} as ${decodeURIComponent(parsed.username) || "(default user)"}`;
const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
try {
  const [role] = await sql`SELECT rolsuper OR rolcreatedb AS may FROM pg_roles WHERE rolname = current_user`;
  if (!role?.may) {
    console.error(`PostgreSQL at ${where} answers, but its user may not CREATE DATABASE, which every test file needs`);
    process.exitCode = 1;
  } else {
    console.log(`PostgreSQL at ${where} is reachable`);
  }
} catch (error) {
  console.error(`PostgreSQL at ${where} is not reachable: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await sql.end({ timeout: 1 });
}
