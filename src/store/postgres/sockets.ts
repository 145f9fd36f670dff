import net from "node:net";

/**
 * The TCP sockets of a store's pools, made here rather than by the driver so that a
 * connection that stopped answering can be found and cut. A socket is "owed an answer"
 * from a write until PostgreSQL has handed the turn back (ReadyForQuery, or
 * CopyInResponse: it then waits for the client), and counts as silent from the later of
 * that write and the last byte received; a black-holed route (packets dropped, no reset)
 * leaves it owed for ever, where the driver would wait for TCP's own retransmission
 * timeout, many minutes. Bytes alone do not settle the debt: a route that died in the
 * middle of an answer (the driver's type lookup on a new connection is several segments
 * long) left the driver waiting for the rest on a socket that had "received", and a
 * pool whose connections all did so answered nothing until restarted.
 */

/**
 * How long a socket the driver ends (a terminated or idle connection, the pool's end) may
 * take to close before it is destroyed. end() waits for the other side's FIN, which a
 * black hole never sends: the connection would stay out of the pool for good.
 */
const END_GRACE_MS = 1_000;

interface Tracked {
  readonly socket: net.Socket;
  /** Since when an answer owed has made no progress (the write, or the last byte since); undefined when none is owed. */
  owedSince: number | undefined;
  readonly answers: ServerMessages;
}

/** ReadyForQuery ('Z') and CopyInResponse ('G'): after either, PostgreSQL waits for the client. */
const TURN_ENDS = new Set(["Z".charCodeAt(0), "G".charCodeAt(0)]);

/**
 * Where PostgreSQL's byte stream stands: every message after the connection's start is
 * a type byte and a 32-bit length that counts itself (the protocol's framing), so the
 * ends of messages can be found without reading them.
 */
export class ServerMessages {
  private readonly header = Buffer.alloc(5);
  private headerBytes = 0;
  private bodyLeft = 0;
  private type = 0;
  private lastComplete = 0;

  /** Reads a chunk; true when it ends just after a message that hands the turn to the client. */
  read(chunk: Buffer): boolean {
    let at = 0;
    while (at < chunk.length) {
      if (this.bodyLeft > 0) {
        const taken = Math.min(this.bodyLeft, chunk.length - at);
        this.bodyLeft -= taken;
        at += taken;
        if (this.bodyLeft === 0) this.lastComplete = this.type;
        continue;
      }
      const taken = Math.min(5 - this.headerBytes, chunk.length - at);
      chunk.copy(this.header, this.headerBytes, at, at + taken);
      this.headerBytes += taken;
      at += taken;
      if (this.headerBytes < 5) break;
      this.headerBytes = 0;
      this.type = this.header[0]!;
      this.bodyLeft = Math.max(0, this.header.readInt32BE(1) - 4);
      if (this.bodyLeft === 0) this.lastComplete = this.type;
    }
    return this.headerBytes === 0 && this.bodyLeft === 0 && TURN_ENDS.has(this.lastComplete);
  }
}

/**
 * Holds a socket's 'error' event back until its 'close', then emits both in one go. The
 * driver (postgres.js 3.4.9) fails the statements a connection was given when its socket
 * errs, and at a close that follows an error assumes it did so already; but between the
 * two (milliseconds: the close waits for the handle) the pool still counts the connection
 * as busy and hands it more statements, which the driver then neither sends nor fails. On
 * the next socket of that connection it waits for the answer to one of them for good, and
 * the connection never leaves "connecting": a pool whose connections all did so answered
 * nothing until restarted. With both events at once nothing can be handed to it in
 * between, and what it was given before is failed by the error as it should be.
 */
function errorWithClose(socket: net.Socket): void {
  let held: { error: unknown } | undefined;
  let closed = false;
  const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
  socket.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    if (event === "error" && !closed) {
      // Only the first: what follows it (a write to the destroyed socket) says nothing new.
      held ??= { error: args[0] };
      return true;
    }
    if (event === "close") {
      closed = true;
      if (held) emit("error", held.error);
      held = undefined;
    }
    return emit(event, ...args);
  }) as typeof socket.emit;
}

/** The subset of the driver's options a socket is made from. */
export interface SocketTarget {
  readonly host: readonly string[];
  readonly port: readonly number[];
  readonly path?: string | false;
}

export class Sockets {
  private readonly live = new Set<Tracked>();
  private next = 0;

  /**
   * For the driver's `socket` option: a connecting socket to the next host. TLS sockets
   * the driver wraps around it are not tracked (their bytes no longer pass through it);
   * only their end is bounded.
   */
  make(options: SocketTarget & { readonly ssl?: unknown }): net.Socket {
    const index = this.next++ % Math.max(options.host.length, 1);
    const socket = options.path
      ? net.connect(options.path)
      : net.connect(options.port[index] ?? options.port[0] ?? 5432, options.host[index] ?? options.host[0] ?? "localhost");
    socket.setNoDelay(true);
    const end = socket.end.bind(socket) as (...args: unknown[]) => net.Socket;
    socket.end = ((...args: unknown[]) => {
      setTimeout(() => socket.destroy(), END_GRACE_MS).unref();
      return end(...args);
    });
    if (options.ssl) return socket;
    errorWithClose(socket);
    const tracked: Tracked = { socket, owedSince: undefined, answers: new ServerMessages() };
    this.live.add(tracked);
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      tracked.owedSince ??= performance.now();
      return write(...args);
    });
    // Added before the driver's own listener, in the same turn: no byte can arrive in between.
    socket.on("data", (chunk: Buffer) => {
      const turnEnded = tracked.answers.read(chunk);
      // A notice or notification on an idle connection owes nothing; a part of an answer is progress.
      if (turnEnded) tracked.owedSince = undefined;
      else if (tracked.owedSince !== undefined) tracked.owedSince = performance.now();
    });
    socket.once("close", () => this.live.delete(tracked));
    return socket;
  }

  /**
   * Destroys every socket that has been owed an answer for `ms` or more, with an
   * ETIMEDOUT error: the driver fails what was sent on it and drops the connection from
   * its pool (it is never used again; the pool opens a new one when it needs one).
   */
  dropSilent(ms: number): number {
    const before = performance.now() - ms;
    let dropped = 0;
    for (const tracked of this.live) {
      if (tracked.owedSince === undefined || tracked.owedSince > before) continue;
      this.live.delete(tracked);
      tracked.socket.destroy(Object.assign(new Error(`PostgreSQL sent nothing for ${ms} ms or more`), { code: "ETIMEDOUT" }));
      dropped += 1;
    }
    return dropped;
  }
}
