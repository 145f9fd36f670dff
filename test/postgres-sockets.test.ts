import { test } from "node:test";
import assert from "node:assert/strict";
import type net from "node:net";
import { connect } from "../src/store/postgres/driver.js";
import { ServerMessages, Sockets } from "../src/store/postgres/sockets.js";
import { freshPostgresDatabase, postgresServerUrl, testEngine, testFileLabel } from "./support/database.js";

/** A message of PostgreSQL's protocol: its type, then a length that counts itself, then the body. */
function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

// An answer as PostgreSQL sends one: ParseComplete, BindComplete, a row description, a large
// row, CommandComplete, ReadyForQuery ('Z', with the transaction status 'I').
const answer = Buffer.concat([
  message("1", Buffer.alloc(0)), message("2", Buffer.alloc(0)), message("T", Buffer.alloc(40, 1)),
  message("D", Buffer.alloc(9_000, 120)), message("C", Buffer.from("SELECT 1\0")), message("Z", Buffer.from("I")),
]);

test("the turn comes back to the client only at the end of ReadyForQuery, however the answer is cut into chunks", () => {
  for (const size of [1, 2, 3, 4, 5, 6, 7, 13, 1_000, 4_096, answer.length]) {
    const messages = new ServerMessages();
    const ends: number[] = [];
    for (let at = 0; at < answer.length; at += size) {
      const end = Math.min(at + size, answer.length);
      if (messages.read(answer.subarray(at, end))) ends.push(end);
    }
    assert.deepEqual(ends, [answer.length], `chunks of ${size} bytes`);
  }
});

test("a notice after ReadyForQuery, or the start of the next answer, takes the turn away again; CopyInResponse hands it over", () => {
  const messages = new ServerMessages();
  assert.equal(messages.read(answer), true);
  assert.equal(messages.read(message("N", Buffer.from("notice\0"))), false);
  assert.equal(messages.read(answer.subarray(0, 3)), false, "a header cut in the middle");
  assert.equal(messages.read(answer.subarray(3)), true);
  assert.equal(messages.read(message("G", Buffer.alloc(3))), true, "COPY FROM STDIN: PostgreSQL waits for the rows");
});

/** `promise`, or "still waiting" once `ms` have passed without it settling. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | "still waiting"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"still waiting">((resolve) => { timer = setTimeout(() => resolve("still waiting"), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

test("a statement handed to a connection between its socket's error and its close is answered on a new connection, and so are the next",
  { skip: testEngine() === "postgres" ? false : "PostgreSQL only: the driver's connections" }, async () => {
    const database = await freshPostgresDatabase(postgresServerUrl(), testFileLabel());
    const sockets = new Sockets();
    const made: net.Socket[] = [];
    const make = sockets.make.bind(sockets);
    sockets.make = (options) => { const socket = make(options); made.push(socket); return socket; };
    // One connection, as a store's pool for configuration reads has two: what it is handed must reach it.
    const pool = connect(database.url, 1, {}, { sockets, timeoutMs: 60_000 });
    try {
      assert.deepEqual(Array.from(await pool.unsafe("SELECT 1 AS n")), [{ n: 1 }]);
      const slow = pool.unsafe("SELECT pg_sleep(30)");
      // Sent as the service sends its next statement when one fails (the store's orphan
      // sessions are asked to end just so): in the failure's own turn, before the socket
      // has closed. postgres.js 3.4.9 counted it as sent on the dead socket and, on the
      // connection's next socket, waited for its answer for good.
      const next = slow.then(() => "answered", () => pool.unsafe("SELECT 2 AS n").then((rows) => Array.from(rows)));
      made.at(-1)!.destroy(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
      await assert.rejects(slow, { code: "ECONNRESET" });
      assert.deepEqual(await within(next, 10_000), [{ n: 2 }], "the statement sent as the socket failed");
      assert.deepEqual(await within(pool.unsafe("SELECT 3 AS n").then((rows) => Array.from(rows)), 10_000), [{ n: 3 }], "a statement after it");
    } finally {
      await pool.end({ timeout: 1 });
      await database.drop();
    }
  });

test("each of the service's connections has the server send TCP keepalives after 30 s of silence, every 10 s, giving up after 3",
  { skip: testEngine() === "postgres" ? false : "PostgreSQL only: the server's side of a connection" }, async () => {
    const database = await freshPostgresDatabase(postgresServerUrl(), testFileLabel());
    const pool = connect(database.url, 1);
    try {
      const [row] = await pool.unsafe("SELECT current_setting('tcp_keepalives_idle') AS idle, current_setting('tcp_keepalives_interval') AS every, current_setting('tcp_keepalives_count') AS count, inet_server_addr() IS NOT NULL AS tcp");
      // Over a Unix socket the server has no TCP to keep alive and shows 0: this test runs over TCP.
      assert.deepEqual({ ...row }, { idle: "30", every: "10", count: "3", tcp: true });
    } finally {
      await pool.end({ timeout: 1 });
      await database.drop();
    }
  });
