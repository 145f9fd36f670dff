import { CounterDeltas } from "./counting/deltas.js";
import { settleCounters } from "./counting/settle.js";
import { StoreUnavailableError } from "./errors.js";
import type { Layout } from "./counting/keys.js";
import type { Capabilities, TransactionOptions, Tx, TxViews } from "./ports/store.js";

/** TransactionOptions, plus what an engine adds for its own transactions. */
export interface RunOptions extends TransactionOptions {
  /**
   * When (performance.now()) the caller stops waiting: a unit still queued then is taken
   * out and fails as the store being unavailable, and a group's transaction ends by its
   * earliest unit's deadline. Absent: no deadline.
   */
  readonly deadline?: number | undefined;
}

/** What an engine provides so that units of work can run in its transactions. */
export interface TransactionEngine<S> {
  readonly capabilities: Capabilities;
  /**
   * Opens a write transaction, runs `work`, commits; rolls back and rethrows if `work`
   * throws. An engine that honours `deadline` fails it as the store being unavailable
   * once it passes, and makes sure it does not commit afterwards. `units`: how many units
   * will run in it. With more than one, an engine may send a unit's writes without
   * waiting for their answers, so that the next unit starts at once; if one of those
   * writes then fails, the transaction fails with UnitWritesFailedError, and the units
   * run again, one at a time (units > 1 is never asked again for them).
   */
  transaction<T>(work: (session: S) => Promise<T>, deadline?: number, units?: number): Promise<T>;
  /** Runs `work` in a savepoint of the session's transaction; rolls back to it and rethrows if `work` throws. */
  savepoint<T>(session: S, work: () => Promise<T>): Promise<T>;
  /** Every view of the store on the open transaction: what its units read and write through. */
  views(session: S): TxViews;
  /**
   * Resolves once every transaction committed so far is on disk, where `transaction`
   * resolves at its COMMIT before that: present when capabilities.durableOnCommit is false.
   */
  durable?(): Promise<void>;
}

interface Queued {
  readonly work: (tx: Tx) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly deadline: number | undefined;
  /** Takes the unit out of its queue at its deadline, if it is still waiting there. */
  timer?: NodeJS.Timeout;
}

type Outcome = { readonly value: unknown } | { readonly error: unknown };

/**
 * A write a unit sent without waiting failed after its unit had gone on: which unit it
 * undid, and what the units after it saw, is no longer known, so the transaction is
 * rolled back and its units run again one at a time. Never reaches a client.
 */
export class UnitWritesFailedError extends Error {
  constructor(cause: unknown) {
    super("a write sent ahead in a group commit failed", { cause });
    this.name = "UnitWritesFailedError";
  }
}

const NOTHING_PENDING = new CounterDeltas();

/** A unit of work: the transaction's views, with the counter changes of the unit and of those before it. */
function unit(views: TxViews, deltas: CounterDeltas, pending: CounterDeltas, layouts: Map<string, Layout>): Tx {
  return { ...views, deltas, pending, layouts };
}

/**
 * Units of work on top of an engine's transactions, the same for every engine. A unit
 * with a group (a bloc ID) is group-committed: units of one group that arrive while
 * the group's previous transaction is running share the next one, each in a savepoint
 * of its own, and their counter changes are merged and settled once before the commit
 * (domain/counting/settle.ts).
 * An engine may let the units of a group go on without waiting for their writes'
 * answers; if one of those writes fails, the group runs again, each unit waiting for its
 * own (UnitWritesFailedError).
 * Many answers then cost one sync to disk and one write per counter row. No answer is
 * given before the transaction holding it has committed and is on disk (`durable`, on an
 * engine whose commits are not durable as they return); the group's next transaction may
 * run while that one is being made durable.
 */
export class Transactions<S> {
  private readonly queues = new Map<string, Queued[]>();
  private readonly running = new Set<string>();

  constructor(private readonly engine: TransactionEngine<S>) {}

  /** Waits, where commits are not durable as they return, until those made so far are. */
  private async durable(): Promise<void> {
    if (this.engine.capabilities.durableOnCommit) return;
    if (!this.engine.durable) throw new Error("an engine whose commits are not durable on commit must say when they are");
    await this.engine.durable();
  }

  run<T>(work: (tx: Tx) => Promise<T>, options: RunOptions = {}): Promise<T> {
    const group = options.group;
    if (group === undefined) {
      return this.engine.transaction(async (session) => {
        const views = this.engine.views(session);
        const deltas = new CounterDeltas();
        const result = await work(unit(views, deltas, NOTHING_PENDING, new Map()));
        if (!deltas.empty) await settleCounters(views, deltas);
        return result;
      }, options.deadline).then(async (result) => {
        await this.durable();
        return result;
      });
    }
    return new Promise<T>((resolve, reject) => {
      const queue = this.queues.get(group);
      const item: Queued = { work, resolve: resolve as (value: unknown) => void, reject, deadline: options.deadline };
      if (item.deadline !== undefined) {
        item.timer = setTimeout(() => this.expire(group, item), Math.max(0, item.deadline - performance.now()));
      }
      if (queue) {
        queue.push(item);
        return;
      }
      this.queues.set(group, [item]);
      // Waiting one turn lets the requests that arrived together join the batch.
      if (!this.running.has(group)) setImmediate(() => void this.flush(group));
    });
  }

  /**
   * Runs a batch's units in one transaction, each in a savepoint; a unit that throws is
   * rolled back alone. Returns each unit's outcome once committed.
   */
  private async runBatch(batch: readonly Queued[], deadline: number | undefined, units: number): Promise<Outcome[]> {
    let outcomes: Outcome[] = [];
    await this.engine.transaction(async (session) => {
      outcomes = [];
      const views = this.engine.views(session);
      const pending = new CounterDeltas();
      let layouts = new Map<string, Layout>();
      for (const item of batch) {
        const deltas = new CounterDeltas();
        try {
          const value = await this.engine.savepoint(session, () => item.work(unit(views, deltas, pending, layouts)));
          pending.merge(deltas);
          outcomes.push({ value });
        } catch (error) {
          if (error instanceof UnitWritesFailedError) throw error;
          layouts = new Map();
          outcomes.push({ error });
        }
      }
      if (!pending.empty) await settleCounters(views, pending);
    }, deadline, units);
    return outcomes;
  }

  /** A unit whose caller stopped waiting before its transaction began: it never runs. */
  private expire(group: string, item: Queued): void {
    const queue = this.queues.get(group);
    const index = queue?.indexOf(item) ?? -1;
    if (!queue || index < 0) return;
    queue.splice(index, 1);
    if (queue.length === 0) this.queues.delete(group);
    item.reject(new StoreUnavailableError());
  }

  private async flush(group: string): Promise<void> {
    const batch = this.queues.get(group) ?? [];
    this.queues.delete(group);
    if (batch.length === 0) return;
    this.running.add(group);
    // From here the transaction's deadline governs them all: the earliest of theirs.
    let deadline: number | undefined;
    for (const item of batch) {
      clearTimeout(item.timer);
      if (item.deadline !== undefined) deadline = Math.min(deadline ?? Infinity, item.deadline);
    }
    let outcomes: Outcome[] = [];
    let failure: { readonly error: unknown } | undefined;
    try {
      try {
        outcomes = await this.runBatch(batch, deadline, batch.length);
      } catch (error) {
        if (!(error instanceof UnitWritesFailedError)) throw error;
        outcomes = await this.runBatch(batch, deadline, 1);
      }
    } catch (error) {
      failure = { error };
    } finally {
      // The next batch may run while this one's commit is made durable.
      this.running.delete(group);
      if (this.queues.has(group)) setImmediate(() => void this.flush(group));
    }
    if (failure === undefined) {
      try {
        await this.durable();
      } catch (error) {
        failure = { error };
      }
    }
    if (failure !== undefined) {
      for (const item of batch) item.reject(failure.error);
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if ("value" in outcome) item.resolve(outcome.value); else item.reject(outcome.error);
    });
  }
}
