import crypto from "node:crypto";
import { LimitReachedError } from "../domain/errors.js";
import { MAX_SEQUENCE, render, sequenceOf, type SequenceTemplate } from "../domain/autogenerate.js";
import { uniqueViolation } from "../domain/field-rules.js";
import { STATUS_KEY, type RecordFilter } from "../domain/model.js";
import type { AutogeneratePlan, InsertPlan, Inserted, NewRecord, Replacement, UniqueKey } from "./store.js";
import { CounterDeltas, type SqliteCounters } from "./sqlite-counters.js";
import type { SqliteReads } from "./sqlite-reads.js";
import { likePrefix, whereClause } from "./sqlite-sql.js";
import { fieldPath, type Param, type Statements } from "./sqlite-statements.js";

interface QueuedInsert {
  readonly record: NewRecord;
  readonly plan: InsertPlan;
  readonly resolve: (inserted: Inserted) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Record writes of the SQLite engine: inserts (group-committed, with their rule checks),
 * imports and updates, each keeping the counters in the same transaction.
 */
export class SqliteWrites {
  private queue: QueuedInsert[] = [];

  constructor(
    private readonly sql: Statements,
    private readonly counters: SqliteCounters,
    private readonly reads: SqliteReads,
  ) {}

  /** Whether another record of the bloc holds `value` in `slug` (within the template's group, if any). */
  private taken(blocId: string, slug: string, value: string, group?: { slug: string; value: string }): boolean {
    // The path is inlined so that an expression index on it can serve the lookup.
    let query = `SELECT 1 FROM records r WHERE r.bloc_id = ? AND json_extract(r.data, '${fieldPath(slug)}') = ?`;
    const params: Param[] = [blocId, value];
    if (group) {
      query += " AND COALESCE(json_extract(r.data, ?), '') = ?";
      params.push(fieldPath(group.slug), group.value);
    }
    return this.sql.get(`${query} LIMIT 1`).get(...params) !== undefined;
  }

  /** The last counter handed out for this template, starting from the highest value already in the bloc. */
  private lastSequence(blocId: string, slug: string, t: SequenceTemplate): number {
    const row = this.sql.get("SELECT last FROM sequences WHERE bloc_id = ? AND slug = ? AND grp = ? AND prefix = ? AND suffix = ?")
      .get(blocId, slug, t.group, t.prefix, t.suffix) as { last: number } | undefined;
    if (row) return row.last;
    let query = `SELECT json_extract(r.data, '${fieldPath(slug)}') AS v FROM records r
      WHERE r.bloc_id = ? AND json_extract(r.data, '${fieldPath(slug)}') LIKE ? ESCAPE '\\'`;
    const params: Param[] = [blocId, likePrefix(t.prefix)];
    if (t.groupBy !== null) {
      query += " AND COALESCE(json_extract(r.data, ?), '') = ?";
      params.push(fieldPath(t.groupBy), t.group);
    }
    let highest = 0;
    for (const { v } of this.sql.get(query).iterate(...params) as Iterable<{ v: string }>) {
      highest = Math.max(highest, sequenceOf(t, v) ?? 0);
    }
    return highest;
  }

  private saveSequence(blocId: string, slug: string, t: SequenceTemplate, last: number): void {
    this.sql.get(`INSERT INTO sequences (bloc_id, slug, grp, prefix, suffix, last) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (bloc_id, slug, grp, prefix, suffix) DO UPDATE SET last = MAX(last, excluded.last)`)
      .run(blocId, slug, t.group, t.prefix, t.suffix, last);
  }

  private scanLimitCheck(blocId: string, plan: NonNullable<InsertPlan["scanLimit"]>, pending: number): void {
    const counted = this.reads.countSince(blocId, plan.since, undefined) + pending;
    if (counted >= plan.limit) {
      throw new LimitReachedError(
        `This bloc has reached its scan limit of ${plan.limit} records${plan.period ? ` for this ${plan.period}` : ""}`,
      );
    }
  }



  /**
   * Group commit: inserts that arrive while one transaction is being prepared share
   * it, so that many answers cost one sync to disk. Each insert runs in a savepoint
   * of its own, so one refused insert does not undo the others, and no answer is
   * given before the transaction holding it has committed.
   */
  insert(record: NewRecord, plan: InsertPlan): Promise<Inserted> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, plan, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    const outcomes: ({ inserted: Inserted } | { error: unknown })[] = [];
    try {
      this.sql.immediate(() => {
        // Counters of the whole batch are written once: most adds share a day, a segment and values.
        const deltas = new CounterDeltas();
        const added = new Map<string, number>();
        for (const item of batch) {
          try {
            const pending = added.get(item.record.blocId) ?? 0;
            const inserted = this.sql.db.transaction(() => this.insertOne(item.record, item.plan, pending))();
            deltas.add({ ...item.record, values: inserted.values }, this.counters.profileSlugs(item.record.blocId), 1);
            added.set(item.record.blocId, pending + 1);
            outcomes.push({ inserted });
          } catch (error) {
            outcomes.push({ error });
          }
        }
        this.counters.apply(deltas);
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if ("inserted" in outcome) item.resolve(outcome.inserted); else item.reject(outcome.error);
    });
  }

  /**
   * One insert, inside a batch whose counters are written at its end: `pending` records
   * of this bloc were added earlier in the batch and are not in the counters yet.
   */
  private insertOne(record: NewRecord, plan: InsertPlan, pending: number): Inserted {
    if (plan.scanLimit) this.scanLimitCheck(record.blocId, plan.scanLimit, pending);
    const values: Record<string, string> = { ...record.values };
    const replacements = plan.autogenerate.flatMap((autogenerate) => this.autogenerate(record.blocId, autogenerate, values));
    for (const field of plan.unique) {
      const value = values[field.slug];
      if (value !== undefined && value !== "" && this.taken(record.blocId, field.slug, value)) {
        throw uniqueViolation(field, value);
      }
    }
    const { id } = this.sql.get(`INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data)
      VALUES (?, ?, ?, ?, ?, ?) RETURNING id`)
      .get(record.blocId, record.createdAt, record.userId, record.submittedStatus, record.jobId,
        JSON.stringify(values)) as { id: number };
    for (const file of plan.files) {
      this.sql.get(`INSERT INTO files (ref, bloc_id, record_id, slug, sha256, name, type, size, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(file.ref, record.blocId, id, file.slug, file.sha256, file.name, file.type, file.size, record.createdAt);
      this.sql.get("DELETE FROM content_holds WHERE id = ?").run(file.hold);
    }
    return { id, values, replacements };
  }

  /**
   * Fills one autogenerate field in `values`: the client's value when free, else the next
   * free counter value. Returns the replacement to report, if the client's was taken.
   */
  private autogenerate(blocId: string, { field, template, sent }: AutogeneratePlan, values: Record<string, string>): Replacement[] {
    const group = template.groupBy === null ? undefined : { slug: template.groupBy, value: template.group };
    if (sent !== "" && !this.taken(blocId, field.slug, sent, group)) {
      values[field.slug] = sent;
      const seq = sequenceOf(template, sent);
      if (seq !== null) this.saveSequence(blocId, field.slug, template, seq);
      return [];
    }
    let seq = this.lastSequence(blocId, field.slug, template);
    let value: string;
    do {
      seq += 1;
      if (seq > MAX_SEQUENCE) throw new LimitReachedError(`${field.slug} (${field.name}) has used up its counter`);
      value = render(template, seq);
    } while (this.taken(blocId, field.slug, value, group));
    this.saveSequence(blocId, field.slug, template, seq);
    values[field.slug] = value;
    return sent === "" ? [] : [{ field: field.slug, sent, value }];
  }

  /** Inserts records as they are, with no rules to check (imports and seeding), in one transaction. */
  importMany(records: readonly NewRecord[]): number[] {
    return this.sql.immediate(() => {
      const insert = this.sql.get(`INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data)
        VALUES (?, ?, ?, ?, ?, ?) RETURNING id`);
      const deltas = new CounterDeltas();
      const profiles = new Map<string, string[]>();
      const ids = records.map((record) => {
        let profileSlugs = profiles.get(record.blocId);
        if (!profileSlugs) profiles.set(record.blocId, profileSlugs = this.counters.profileSlugs(record.blocId));
        deltas.add(record, profileSlugs, 1);
        return (insert.get(record.blocId, record.createdAt, record.userId, record.submittedStatus, record.jobId,
          JSON.stringify(record.values)) as { id: number }).id;
      });
      this.counters.apply(deltas);
      return ids;
    });
  }

  /**
   * Refuses an update that would leave two records with one value of a unique key:
   * among the updated records themselves, or between one of them and a record the
   * update does not touch. Values are compared within the key's group, if it has one.
   */
  private checkUnique(blocId: string, where: { sql: string; params: Param[] },
    fields: Readonly<Record<string, string>>, keys: readonly UniqueKey[]): void {
    const rows = this.sql.get(`SELECT r.id, r.data FROM records r WHERE ${where.sql}`).all(...where.params) as { id: number; data: string }[];
    const updated = new Set(rows.map((row) => row.id));
    for (const key of keys) {
      const seen = new Set<string>();
      for (const row of rows) {
        const after: Record<string, string> = { ...(JSON.parse(row.data) as Record<string, string>), ...fields };
        const value = after[key.field.slug] ?? "";
        if (value === "") continue;
        const group = key.groupBy === null ? undefined : { slug: key.groupBy, value: after[key.groupBy] ?? "" };
        const identity = JSON.stringify([group?.value ?? null, value]);
        if (seen.has(identity)) throw uniqueViolation(key.field, value);
        seen.add(identity);
        let query = `SELECT r.id FROM records r WHERE r.bloc_id = ? AND json_extract(r.data, '${fieldPath(key.field.slug)}') = ?`;
        const params: Param[] = [blocId, value];
        if (group) { query += " AND COALESCE(json_extract(r.data, ?), '') = ?"; params.push(fieldPath(group.slug), group.value); }
        const holders = this.sql.get(`${query} LIMIT ?`).all(...params, updated.size + 1) as { id: number }[];
        if (holders.some((holder) => !updated.has(holder.id))) throw uniqueViolation(key.field, value);
      }
    }
  }

  update(filter: RecordFilter, values: Readonly<Record<string, string>>, unique: readonly UniqueKey[]): number[] {
    const where = whereClause(filter);
    const { [STATUS_KEY]: status, ...fields } = values;
    const affected = unique.filter((k) => k.field.slug in fields || (k.groupBy !== null && k.groupBy in fields));
    return this.sql.immediate(() => {
      if (affected.length > 0) this.checkUnique(filter.blocId, where, fields, affected);
      // The old values leave the counters and the new ones enter, in this transaction.
      const before = this.sql.get(`SELECT r.id, r.created_at, r.user_id, r.data FROM records r WHERE ${where.sql}`)
        .all(...where.params) as { id: number; created_at: string; user_id: string; data: string }[];
      if (before.length === 0) return [];
      const deltas = new CounterDeltas();
      const profileSlugs = this.counters.profileSlugs(filter.blocId);
      for (const row of before) {
        const old = JSON.parse(row.data) as Record<string, string>;
        const counted = { blocId: filter.blocId, createdAt: row.created_at, userId: row.user_id, values: old };
        const changed = Object.entries(fields).filter(([slug, value]) => (old[slug] ?? "") !== value);
        if (changed.some(([slug]) => profileSlugs.includes(slug))) {
          // The record moves between profile segments: it leaves them whole and enters the new ones whole.
          deltas.add(counted, profileSlugs, -1);
          deltas.add({ ...counted, values: { ...old, ...fields } }, profileSlugs, 1);
          continue;
        }
        for (const [slug, value] of changed) {
          deltas.addValue(counted, profileSlugs, slug, old[slug] ?? "", -1);
          deltas.addValue(counted, profileSlugs, slug, value, 1);
        }
      }
      const rows = this.sql.get(`UPDATE records AS r SET data = json_patch(r.data, ?),
          submitted_status = COALESCE(?, r.submitted_status)
        WHERE ${where.sql} RETURNING id`)
        .all(JSON.stringify(fields), status === undefined ? null : Number(status), ...where.params) as { id: number }[];
      this.counters.apply(deltas);
      return rows.map((row) => row.id).sort((a, b) => a - b);
    });
  }

  /** Recounts a bloc's counters, in a transaction, after its profile-filtered fields changed. */
  rebuildCounters(blocId: string): void {
    this.sql.immediate(() => this.counters.rebuild(blocId));
  }

  holdContent(sha256: string, createdAt: string): string {
    const id = crypto.randomUUID();
    this.sql.get("INSERT INTO content_holds (id, sha256, created_at) VALUES (?, ?, ?)").run(id, sha256, createdAt);
    return id;
  }

  releaseContent(hold: string, sha256: string, remove: () => void): void {
    this.sql.immediate(() => {
      this.sql.get("DELETE FROM content_holds WHERE id = ?").run(hold);
      const used = this.sql.get(`SELECT 1 FROM files WHERE sha256 = ?
        UNION ALL SELECT 1 FROM content_holds WHERE sha256 = ? LIMIT 1`).get(sha256, sha256) !== undefined;
      // Removed inside the transaction: an upload of the same content takes its hold only after this commits.
      if (!used) remove();
    });
  }
}
