import { ServiceError, StoreUnavailableError } from "../../domain/errors.js";
import { UnitWritesFailedError } from "../../domain/transactions.js";
import { Deadline } from "./deadline.js";
import { lockUntilCommit, run, type AheadWrite, type Param, type Pg, type RunOptions, type TxDb } from "./driver.js";
import { translate, unavailable } from "./errors.js";
import type { Orphans } from "./orphans.js";

/**
 * The driver's connection object behind a reserved connection, as its query option
 * `onexecute` hands it over (node_modules/postgres/src/connection.js, execute): what a
 * transaction needs to cut its connection, and to learn that the connection closed.
 */
type Reserved = Awaited<ReturnType<Pg["reserve"]>>;

interface RawConnection {
  terminate(): void;
  onclose: ((error: unknown) => void) | null;
}

/**
 * How many store deadlines a request's transaction may sit idle, waiting for the service,
 * before PostgreSQL ends its session itself. The service never makes it wait that long:
 * past one deadline it cuts the connection. So only a transaction whose connection was
 * lost without PostgreSQL noticing (a partition that drops packets) reaches it, and this
 * frees its bloc's lock even when the service could not name the session to end
 * (orphans.ts), or is gone.
 */
const IDLE_LIMIT_DEADLINES = 2;

/** A row written ahead and not sent yet, with the unit that wrote it (0: none). */
interface Held {
  readonly unit: number;
  readonly write: AheadWrite<unknown>;
  readonly row: unknown;
}

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
 *
 * In a group commit of several units, a unit's writes that nobody reads back (its
 * record, with an ID taken ahead; its event) are not waited for either: the next unit
 * starts at once. They are held, and the rows of every unit go to PostgreSQL in one
 * statement per kind (all the records, then all the events) just before the next
 * statement of any kind or the COMMIT: per add, PostgreSQL then parses, runs and answers
 * a share of two statements instead of four (docs/performance.md). A unit's savepoint is
 * likewise sent only before its first statement: a unit that sends none (an add, after
 * the first of its group) needs none, and one that fails drops its held rows. A write so
 * sent ahead that fails has made every later statement fail too, whichever unit wrote
 * it, so the transaction then fails as a whole (UnitWritesFailedError) and the group runs
 * again, each unit waiting for its own.
 *
 * A connection that was lost (reset, closed, cut at the deadline) is never written to or
 * released again: the driver has already put it back among its closed connections, and
 * a write on it, or its release into the open ones, would throw from a timer and kill
 * the process (porsager/postgres#1154, #1208), or send this transaction's statements
 * on a connection the pool has since reopened for another. PostgreSQL rolls back what
 * it held.
 */
export class WriteTransaction {
  /** Whether the transaction changed users, tokens, blocs or access: it then reads those uncached. */
  wroteConfig = false;
  readonly db: TxDb;
  /** The first statement that failed since the transaction, or the running unit, began. */
  private failure: unknown;
  /** Writes sent ahead (TxDb.ahead), and the first of them that failed. */
  private readonly ahead: Promise<unknown>[] = [];
  private aheadFailure: { readonly error: unknown } | undefined;
  /** Units begun, and record IDs taken from the sequence for those still to come. */
  private unitsBegun = 0;
  /** Whether a unit is running, and whether its savepoint was sent. */
  private inUnit = false;
  private unitSaved = false;
  /** Rows written ahead and held to be sent together (with `pipelining`). */
  private held: Held[] = [];
  /** Sends a statement as it comes, its failure kept: no savepoint taken, nothing held sent first. */
  private readonly sendNow: <T extends object>(text: string, params?: readonly Param[], options?: RunOptions) => Promise<T[]>;
  private ids: number[] = [];
  /** Blocs whose lock the transaction holds for good: taken outside any unit, or by a unit that was kept. */
  private readonly locked = new Set<string>();
  /** Blocs locked by the running unit: PostgreSQL releases them if its savepoint is rolled back. */
  private unitLocks: Set<string> | undefined;

  /** The reserved connection, for what goes around statements (a COPY). */
  readonly connection: Pg;
  /** The driver's connection, once BEGIN was handed to it. */
  private raw: RawConnection | undefined;
  /** The connection closed, failed as a connection, or was cut: nothing more may go on it. */
  private lost = false;
  /** The server session's pid, from BEGIN's execution: what ends it if this connection is lost (orphans.ts). */
  private pid: number | null = null;

  private constructor(private readonly reserved: Reserved, private readonly orphans: Orphans | undefined, private readonly idleLimitMs: number,
    private readonly units: number) {
    const conn: Pg = reserved;
    this.connection = conn;
    this.sendNow = <T extends object>(text: string, params?: readonly Param[], options?: RunOptions): Promise<T[]> => {
      const sent = this.lost ? Promise.reject(new StoreUnavailableError()) : run<T>(conn, text, params, options);
      sent.catch((error: unknown) => {
        this.failure ??= error;
        if (unavailable(error) || error instanceof StoreUnavailableError) this.loseConnection();
      });
      return sent;
    };
    const pipelining = units > 1;
    this.db = {
      run: (text, params, options) => {
        this.beforeStatement();
        return this.sendNow(text, params, options);
      },
      pipelining,
      ahead: <R>(write: AheadWrite<R>, row: R) => {
        if (pipelining) {
          this.held.push({ unit: this.inUnit ? this.unitsBegun : 0, write, row });
          return;
        }
        this.beforeStatement();
        this.sendAhead(write.statement([row]));
      },
      recordId: () => this.recordId(),
    };
  }

  /**
   * What must go before a statement: a running unit's savepoint, if not sent yet (after
   * the rows earlier units hold, so that rolling it back keeps them), and every held row.
   */
  private beforeStatement(): void {
    if (this.inUnit && !this.unitSaved) {
      this.sendHeld((held) => held.unit !== this.unitsBegun);
      this.unitSaved = true;
      this.sendNow("SAVEPOINT unit").catch(() => undefined);
    }
    this.sendHeld(() => true);
  }

  /** Sends the held rows `which` picks, one statement per write and key, in the order each was first written. */
  private sendHeld(which: (held: Held) => boolean): void {
    if (this.held.length === 0) return;
    const groups = new Map<AheadWrite<unknown>, Map<string, unknown[]>>();
    const kept: Held[] = [];
    for (const held of this.held) {
      if (!which(held)) {
        kept.push(held);
        continue;
      }
      const byKey = groups.get(held.write) ?? new Map<string, unknown[]>();
      groups.set(held.write, byKey);
      const key = held.write.key(held.row);
      const rows = byKey.get(key);
      if (rows) rows.push(held.row); else byKey.set(key, [held.row]);
    }
    this.held = kept;
    for (const [write, byKey] of groups) for (const rows of byKey.values()) this.sendAhead(write.statement(rows));
  }

  /** Sends a write whose answer nobody reads: its failure is kept for the unit or the transaction. */
  private sendAhead({ text, params }: { text: string; params: Param[] }): void {
    const sent = this.sendNow(text, params);
    this.ahead.push(sent);
    sent.catch((error: unknown) => { this.aheadFailure ??= { error }; });
  }

  /**
   * Runs `work` in a READ COMMITTED transaction on a connection of the pool; commits, or
   * rolls back and rethrows. Past `deadline` it fails as the store being unavailable and
   * its connection is cut, so that it can never commit afterwards (a COMMIT already sent
   * may still have committed: the client cannot know, and Idempotency-Key makes its retry safe).
   */
  static async run<T>(pool: Pg, work: (session: WriteTransaction) => Promise<T>, deadline = Deadline.NONE, orphans?: Orphans, units = 1): Promise<T> {
    let session: WriteTransaction | undefined;
    let abandoned = false;
    return deadline.run(async () => {
      // With no connection open, reserving one connects: a refused or failed connection is the driver's raw error.
      const conn = await pool.reserve().catch((error: unknown) => { throw translate(error); });
      // The deadline passed while every connection was taken; this one is sound and goes back.
      if (abandoned) {
        conn.release();
        throw new StoreUnavailableError();
      }
      session = new WriteTransaction(conn, orphans, deadline.ms * IDLE_LIMIT_DEADLINES, units);
      return session.complete(work);
    }, () => {
      abandoned = true;
      session?.cut();
    });
  }

  private async complete<T>(work: (session: WriteTransaction) => Promise<T>): Promise<T> {
    let sound = false;
    try {
      this.begin();
      if (this.idleLimitMs > 0) this.send(`SET LOCAL idle_in_transaction_session_timeout = ${Math.ceil(this.idleLimitMs)}`);
      const result = await work(this);
      await this.aheadAnswered();
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the driver's own rejection, passed on as it came
      if (this.failure !== undefined) throw this.failure;
      // Checked before COMMIT is sent: on a lost connection it would go nowhere, or to another's.
      if (this.lost) throw new StoreUnavailableError();
      const committed = await this.connection.unsafe("COMMIT");
      sound = true;
      if (committed.command !== "COMMIT") throw new Error(`COMMIT was answered ${committed.command}: the transaction was rolled back`);
      return result;
    } catch (error) {
      this.held = [];
      if (!this.lost) sound = await this.sendNow("ROLLBACK").then(() => !this.lost, () => false);
      // A write sent ahead failed: every statement after it failed with it, whichever unit sent them.
      if (!this.lost && this.db.pipelining && this.aheadFailure !== undefined) {
        throw error instanceof UnitWritesFailedError ? error : new UnitWritesFailedError(this.aheadFailure.error);
      }
      const translated = translate(error);
      // Whatever failed on a connection that was lost failed with it: PostgreSQL rolls back, and a retry may succeed.
      if (this.lost && !(translated instanceof ServiceError)) throw new StoreUnavailableError(undefined, { cause: error });
      throw translated;
    } finally {
      if (sound && !this.lost) {
        if (this.raw) this.raw.onclose = null;
        this.reserved.release();
      }
    }
  }

  /** BEGIN, sent ahead of the first statements; the driver hands over its connection as it takes it. */
  private begin(): void {
    const onexecute = (raw: RawConnection): true => {
      this.raw = raw;
      // The driver sets the query's state (its connection's pid and key) just before this call.
      this.pid = begin.state?.pid ?? null;
      // Told when it closes, even between statements, when no statement of ours would fail.
      raw.onclose = () => this.loseConnection();
      return true;
    };
    const begin = this.connection.unsafe("BEGIN ISOLATION LEVEL READ COMMITTED", [], { onexecute } as never) as
      Promise<unknown> & { state?: { pid: number | null } };
    begin.then(() => undefined, (error: unknown) => {
      this.failure ??= error;
      this.loseConnection();
    });
  }

  /** The deadline passed: the connection is ended (PostgreSQL rolls back) and nothing more is sent on it. */
  private cut(): void {
    if (this.lost) return;
    this.loseConnection();
    this.raw?.terminate();
  }

  /** Nothing more goes on the connection; its server session, if it outlives it, is ended from another (orphans.ts). */
  private loseConnection(): void {
    if (this.lost) return;
    this.lost = true;
    this.orphans?.add(this.pid);
  }

  /**
   * Runs one unit in a savepoint, sent before its first statement: kept if it succeeds,
   * rolled back (with the locks it took) if it throws or one of its statements failed; a
   * unit that sent no statement has only its held rows to drop. Units run one after
   * another, so one savepoint name serves them all: ROLLBACK TO goes back to the latest.
   */
  async unit<T>(work: () => Promise<T>): Promise<T> {
    this.unitsBegun += 1;
    this.inUnit = true;
    this.unitSaved = false;
    this.failure = undefined;
    this.unitLocks = new Set();
    try {
      const result = await work();
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the driver's own rejection, passed on as it came
      if (this.failure !== undefined) throw this.failure;
      for (const blocId of this.unitLocks) this.locked.add(blocId);
      // Keeps the nesting flat; its answer is checked with the next statement's.
      if (this.unitSaved) this.sendNow("RELEASE SAVEPOINT unit").catch(() => undefined);
      return result;
    } catch (error) {
      const unit = this.unitsBegun;
      this.held = this.held.filter((held) => held.unit !== unit);
      // A unit that sent nothing has nothing to roll back, and the rows other units hold stay held.
      if (this.unitSaved) {
        // Whatever an earlier unit sent ahead is answered before this unit is rolled back.
        await this.aheadAnswered();
        await this.sendNow("ROLLBACK TO SAVEPOINT unit");
      }
      this.failure = undefined;
      throw translate(error);
    } finally {
      this.inUnit = false;
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

  /**
   * Waits for the answers of the writes sent ahead. When units run ahead of them, one
   * that failed fails the transaction: it may belong to a unit already counted as kept.
   */
  private async aheadAnswered(): Promise<void> {
    this.sendHeld(() => true);
    await Promise.allSettled(this.ahead);
    if (this.db.pipelining && this.aheadFailure !== undefined) throw new UnitWritesFailedError(this.aheadFailure.error);
  }

  /** IDs for the records of this unit and the units still to come, taken in one statement when first needed. */
  private async recordId(): Promise<number> {
    if (this.ids.length === 0) {
      const wanted = Math.max(1, this.units - this.unitsBegun + 1);
      const rows = await this.db.run<{ id: number }>(
        "SELECT nextval(pg_get_serial_sequence('records', 'id')) AS id FROM generate_series(1, $1::integer)", [wanted]);
      this.ids = rows.map((row) => row.id);
    }
    return this.ids.shift()!;
  }

  /** Sends a statement without waiting for its answer; a failure is kept, to fail the unit or transaction. */
  private send(text: string): void {
    this.db.run(text).catch(() => undefined);
  }
}
