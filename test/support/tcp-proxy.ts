import net from "node:net";

/**
 * A TCP proxy between the service and PostgreSQL, for faults a real network has:
 *
 *   up          bytes flow both ways
 *   cut         every connection is reset and new ones are refused (the port is closed)
 *   black-hole  connections are accepted and kept, and nothing is forwarded either way
 *               (a partition, a dead route): no error, no answer
 *
 * Going back up resets every connection the black hole swallowed: bytes were dropped,
 * so neither end could make sense of what follows, and PostgreSQL then rolls back
 * whatever those connections left open (as it would when a partition's TCP gives up).
 * Or, with `keepSwallowed`, it does not: PostgreSQL's side of them stays open and silent
 * until the proxy closes, as after a partition no reset ever crossed.
 */
export type ProxyMode = "up" | "cut" | "black-hole";

interface Pair {
  readonly client: net.Socket;
  upstream: net.Socket | undefined;
  /** Swallowed by a black hole: nothing is forwarded, closes are not passed on. */
  holed: boolean;
  /** Bytes of PostgreSQL's still forwarded before the pair is swallowed (holeAfter). */
  budget?: number;
}

export class TcpProxy {
  private mode: ProxyMode = "up";
  private readonly pairs = new Set<Pair>();
  private server: net.Server;
  /** What holeAfter lets through on each new connection, until set() ends it. */
  private budget: number | undefined;
  /** Connections accepted since the proxy started, for a test to see that the service reconnected. */
  accepted = 0;

  private constructor(private readonly target: { host: string; port: number }, readonly port: number, server: net.Server) {
    this.server = server;
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    // Connections are accepted only once listening, after `proxy` is made below.
    const server = net.createServer((client) => proxy.accept(client));
    await listen(server, 0);
    const proxy = new TcpProxy(target, (server.address() as net.AddressInfo).port, server);
    return proxy;
  }

  /** A URL like `url` whose host and port are the proxy's. */
  through(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = "127.0.0.1";
    parsed.port = String(this.port);
    return parsed.toString();
  }

  get current(): ProxyMode {
    return this.mode;
  }

  async set(mode: ProxyMode, options: { readonly keepSwallowed?: boolean } = {}): Promise<void> {
    this.budget = undefined;
    if (mode === this.mode) return;
    const was = this.mode;
    this.mode = mode;
    if (mode === "cut") {
      for (const pair of this.pairs) this.reset(pair);
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
      return;
    }
    if (mode === "black-hole") {
      for (const pair of this.pairs) pair.holed = true;
      return;
    }
    for (const pair of this.pairs) if (!pair.holed) pair.budget = undefined;
    if (!options.keepSwallowed) for (const pair of this.pairs) if (pair.holed) this.reset(pair);
    if (was === "cut") {
      this.server = net.createServer((client) => this.accept(client));
      await listen(this.server, this.port);
    }
  }

  /**
   * A black hole that opens in the middle of an answer: each connection, open now or
   * opened later, forwards `bytes` more of PostgreSQL's, then is swallowed. Left with
   * set("up"), as a black hole is.
   */
  holeAfter(bytes: number): void {
    this.mode = "black-hole";
    this.budget = bytes;
    for (const pair of this.pairs) pair.budget = bytes;
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) this.reset(pair);
    if (this.mode !== "cut") await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    this.accepted += 1;
    const pair: Pair = { client, upstream: undefined, holed: this.mode === "black-hole" && this.budget === undefined, budget: this.budget };
    this.pairs.add(pair);
    client.on("error", () => undefined);
    client.on("close", () => {
      // A swallowed pair stays until the hole ends: its close never reached PostgreSQL.
      if (pair.holed) return;
      this.pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (pair.holed) {
      // Accepted, never answered: what a black-holed route does to a new connection.
      client.on("data", () => undefined);
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on("error", () => undefined);
    upstream.on("close", () => { if (!pair.holed) client.destroy(); });
    client.on("data", (chunk: Buffer) => { if (!pair.holed) upstream.write(chunk); });
    upstream.on("data", (chunk: Buffer) => {
      if (pair.holed) return;
      if (pair.budget === undefined) { client.write(chunk); return; }
      client.write(chunk.subarray(0, pair.budget));
      pair.budget -= Math.min(pair.budget, chunk.length);
      if (pair.budget === 0) pair.holed = true;
    });
  }

  private reset(pair: Pair): void {
    this.pairs.delete(pair);
    resetSocket(pair.client);
    if (pair.upstream) resetSocket(pair.upstream);
  }
}

function listen(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => { server.off("error", reject); resolve(); });
  });
}

/**
 * A reset (RST) for a connected socket. One still connecting, or whose shutdown has begun
 * (the other end closed and Node ended ours), is only destroyed: a reset there leaves the
 * native handle referenced, and the test process spun at exit waiting for it to close
 * (as libp2p/js-libp2p#3597 found).
 */
function resetSocket(socket: net.Socket): void {
  if (socket.destroyed) return;
  if (socket.connecting || socket.pending || socket.writableEnded) socket.destroy();
  else socket.resetAndDestroy();
}
