import net from "node:net";

/**
 * The TCP sockets of a store's pools, made here rather than by the driver so that a
 * connection that stopped answering can be found and cut. A socket is "owed an answer"
 * from the first write after the last byte it received; a black-holed route (packets
 * dropped, no reset) leaves it owed for ever, where the driver would wait for TCP's own
 * retransmission timeout, many minutes.
 */

/**
 * How long a socket the driver ends (a terminated or idle connection, the pool's end) may
 * take to close before it is destroyed. end() waits for the other side's FIN, which a
 * black hole never sends: the connection would stay out of the pool for good.
 */
const END_GRACE_MS = 1_000;

interface Tracked {
  readonly socket: net.Socket;
  /** When the socket was first written to after it last received anything; undefined when it owes nothing. */
  owedSince: number | undefined;
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
    const tracked: Tracked = { socket, owedSince: undefined };
    this.live.add(tracked);
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      tracked.owedSince ??= performance.now();
      return write(...args);
    });
    // Added before the driver's own listener, in the same turn: no byte can arrive in between.
    socket.on("data", () => { tracked.owedSince = undefined; });
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
