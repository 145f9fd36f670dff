import postgres from "postgres";
import { ConflictError, InvalidInputError, NotFoundError, ServiceError, StoreUnavailableError } from "../../domain/errors.js";
import { isDriverWriteFault } from "./driver-fault.js";

/** What the referenced tables hold, for "… does not exist". */
const THINGS: Readonly<Record<string, string>> = {
  users: "user", roles: "role", blocs: "bloc", modules: "module", records: "record",
};

/**
 * Errors of the connection rather than of a statement: the socket's own (refused, reset,
 * unreachable, timed out), and the driver's (connection-closed, -ended and -destroyed,
 * CONNECT_TIMEOUT: node_modules/postgres/src/connection.js and index.js).
 */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "EHOSTDOWN", "ENETUNREACH",
  "ENETDOWN", "ENOTFOUND", "EAI_AGAIN",
  "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT",
]);

/**
 * PostgreSQL's own "not now" answers: 08… connection exceptions, 53300 too many
 * connections, 57P01–57P03 a server shutting down, crashed or starting up, 25P03 a
 * session ended for idling in a transaction (write-transaction.ts IDLE_LIMIT_DEADLINES).
 */
const SERVER_UNAVAILABLE = /^(08|53300$|57P0[123]$|25P03$)/;

/**
 * Whether an error says the database cannot be reached now, rather than that a statement failed.
 * The driver's write to a socket that has closed (driver-fault.ts) is such an error: it
 * fails the statement then in flight on that connection, codeless, when the next one is
 * sent before the driver has noticed the close.
 */
export function unavailable(error: unknown): boolean {
  if (isDriverWriteFault(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return error instanceof postgres.PostgresError ? SERVER_UNAVAILABLE.test(code) : CONNECTION_CODES.has(code);
}

/**
 * A driver error as the domain sees it, at the store's boundary: a taken key is a
 * conflict, a missing parent a not-found, text PostgreSQL cannot hold (U+0000) or
 * index is the client's input, not a server fault; a database that cannot be reached is
 * unavailable (503, try again). Anything else stays as it is (a server fault). Already
 * translated errors pass through.
 */
export function translate(error: unknown): unknown {
  if (error instanceof ServiceError) return error;
  if (unavailable(error)) return new StoreUnavailableError(undefined, { cause: error });
  if (!(error instanceof postgres.PostgresError)) return error;
  switch (error.code) {
    case "23505": // unique_violation
      return new ConflictError("already exists");
    case "23503": // foreign_key_violation
      return foreignKey(error);
    case "23502": // not_null_violation: an ID that is no integer (internalId) names nothing
      return new NotFoundError(`${THINGS[`${(error.column_name ?? "").replace(/_id$/, "")}s`] ?? "the referenced row"} does not exist`);
    case "22021": // character_not_in_repertoire: U+0000 in a text parameter
    case "22P05": // untranslatable_character: \u0000 in JSON
      return new InvalidInputError("text must not contain the character U+0000");
    case "54000": // program_limit_exceeded: a value too large for an index entry
      return new InvalidInputError("a value is too long to be stored");
    case "22003": // numeric_value_out_of_range: a whole number past 64 bits
    case "22P02": // invalid_text_representation: such a number as JavaScript writes it (1e+21)
      return new InvalidInputError("a number is out of the range the store can hold");
    default:
      return error;
  }
}

function foreignKey(error: postgres.PostgresError): ServiceError {
  const detail = error.detail ?? "";
  if (detail.includes("is still referenced")) return new ConflictError("it is still in use");
  const table = /table "([^"]+)"/.exec(detail)?.[1] ?? "";
  return new NotFoundError(`${THINGS[table] ?? "the referenced row"} does not exist`);
}
