import { test } from "node:test";
import assert from "node:assert/strict";
import { ServerMessages } from "../src/store/postgres/sockets.js";

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
