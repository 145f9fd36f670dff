import { lockUntilCommit, run, type Db, type Param, type Pg, type RunOptions } from "./driver.js";
import { translate } from "./errors.js";

/**
 * One write transaction, on a connection reserved for it. BEGIN, COMMIT and the
 * savepoint of each unit are written by hand rather than with the driver's sql.begin:
 * each is sent ahead of the statements that follow instead of waiting for its own
 * answer, which in a group commit saves a round trip per unit.
 *
 * What sql.begin did is kept: a statement that failed fails its unit (or the whole
 * transaction, outside units) even if the code that sent it went on, since PostgreSQL
 * refuses everything after it until a rollback; and a COMMIT that PostgreSQL answers
 * with ROLLBACK is a failure, never a success.
 */
export class Session {
  /** Whether the transaction changed users, tokens, blocs or access: it then reads those uncached. */
  wroteConfig = false;
  readonly db: Db;
  /** The first statement that failed since the transaction, or the running unit, began. */
  private failure: unknown;
  /** Blocs whose lock the transaction holds for good: taken outside any unit, or by a unit that was kept. */
  private readonly locked = new Set<string>();
  /** Blocs locked by the running unit: PostgreSQL releases them if its savepoint is rolled back. */
  private unitLocks: Set<string> | undefined;

  /** The reserved connection, for what goes around statements (a COPY). */
  readonly connection: Pg;

  private constructor(conn: Pg) {
    this.connection = conn;
    const send = <T extends object>(text: string, params?: readonly Param[], options?: RunOptions): Promise<T[]> => {
      const sent = run<T>(conn, text, params, options);
      sent.catch((error: unknown) => { this.failure ??= error; });
      return sent;
    };
    this.db = { run: send };
  }

  /** Runs `work` in a READ COMMITTED transaction on a connection of the pool; commits, or rolls back and rethrows. */
  static async run<T>(pool: Pg, work: (session: Session) => Promise<T>): Promise<T> {
    const conn = await pool.reserve();
    const session = new Session(conn);
    try {
      session.send("BEGIN ISOLATION LEVEL READ COMMITTED");
      const result = await work(session);
      if (session.failure !== undefined) throw session.failure;
      const committed = await conn.unsafe("COMMIT");
      if (committed.command !== "COMMIT") throw new Error(`COMMIT was answered ${committed.command}: the transaction was rolled back`);
      return result;
    } catch (error) {
      await conn.unsafe("ROLLBACK").catch(() => undefined);
      throw translate(error);
    } finally {
      conn.release();
    }
  }

  /**
   * Runs one unit in a savepoint: kept if it succeeds, rolled back (with the locks it
   * took) if it throws or one of its statements failed. Units run one after another,
   * so one savepoint name serves them all: ROLLBACK TO goes back to the latest.
   */
  async unit<T>(work: () => Promise<T>): Promise<T> {
    this.send("SAVEPOINT unit");
    this.failure = undefined;
    this.unitLocks = new Set();
    try {
      const result = await work();
      if (this.failure !== undefined) throw this.failure;
      for (const blocId of this.unitLocks) this.locked.add(blocId);
      // Keeps the nesting flat; its answer is checked with the next statement's.
      this.send("RELEASE SAVEPOINT unit");
      return result;
    } catch (error) {
      this.failure = undefined;
      await this.db.run("ROLLBACK TO SAVEPOINT unit");
      throw translate(error);
    } finally {
      this.unitLocks = undefined;
    }
  }

  /**
   * Takes a bloc's lock unless the transaction holds it already: in a group commit,
   * every unit of the bloc asks for it, and only the first needs to wait for it.
   */
  async lockBloc(blocId: string): Promise<void> {
    if (this.locked.has(blocId) || this.unitLocks?.has(blocId)) return;
    await lockUntilCommit(this.db, "bloc", blocId);
    (this.unitLocks ?? this.locked).add(blocId);
  }

  /** Sends a statement without waiting for its answer; a failure is kept, to fail the unit or transaction. */
  private send(text: string): void {
    this.db.run(text).catch(() => undefined);
  }
}
