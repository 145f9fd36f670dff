import { LimitReachedError } from "./errors.js";
import { MAX_SEQUENCE, render, sequenceOf, type SequenceTemplate } from "./autogenerate.js";
import { layoutOf, type Layout } from "./counting/keys.js";
import { recountBloc } from "./counting/recount.js";
import { uniqueViolation } from "./field-rules.js";
import { STATUS_KEY, type Field, type RecordFilter, type ScanLimitPeriod, type StoredRecord } from "./model.js";
import { countSince } from "./record-queries.js";
import { historyOf, type Actor } from "./history.js";
import { recordAdded, recordsUpdated } from "./events.js";
import type { NewFile, NewRecord, StoreReads, Tx, ValueLookup } from "./ports/store.js";
import { ownValue } from "./values.js";
import { lockBloc } from "./capabilities.js";

/**
 * How records are written, the same on every engine: every check that must hold under
 * concurrent writers (scan limits, unique values, autogenerate counters) runs inside
 * the write's transaction after the bloc is locked, and the counters change with it.
 */

/** An auto-generated field of a new record: the client's value, if any, and how to make one. */
export interface AutogeneratePlan {
  readonly field: Field;
  readonly template: SequenceTemplate;
  /** What the client sent; kept if free, else replaced and reported. */
  readonly sent: string;
}

/** A field whose non-empty values must be distinct, within each value of `groupBy` when set. */
export interface UniqueKey {
  readonly field: Field;
  readonly groupBy: string | null;
}

/** The checks and fills an insert makes inside its transaction. */
export interface InsertPlan {
  /** Fields whose non-empty value no other record of the bloc may hold. */
  readonly unique: readonly Field[];
  readonly autogenerate: readonly AutogeneratePlan[];
  readonly scanLimit: { readonly limit: number; readonly since: string | null; readonly period: ScanLimitPeriod | null } | null;
  readonly files: readonly NewFile[];
  /** The token the record is added through (its event names it); null without one. */
  readonly tokenId: string | null;
}

export interface Replacement {
  readonly field: string;
  readonly sent: string;
  readonly value: string;
}

/** What an add answers (and an Idempotency-Key's repeat answers again, idempotency.ts). */
export interface AddedRecord {
  readonly id: number;
  /** Auto-generated values the server chose in place of ones the client sent. */
  readonly autogenerateReplacements: readonly Replacement[];
}

export interface Inserted {
  readonly id: number;
  readonly values: Readonly<Record<string, string>>;
  readonly replacements: readonly Replacement[];
}

async function taken(view: StoreReads, blocId: string, lookup: ValueLookup): Promise<boolean> {
  return (await view.records.holders(blocId, lookup, 1)).length > 0;
}

async function layout(view: StoreReads, blocId: string): Promise<Layout> {
  const bloc = await view.blocs.findBloc(blocId);
  return layoutOf(bloc ?? { fields: [] });
}

/** A locked bloc's layout, read once per transaction: no change of its profile fields can commit meanwhile. */
async function lockedLayout(tx: Tx, blocId: string): Promise<Layout> {
  let known = tx.layouts.get(blocId);
  if (!known) tx.layouts.set(blocId, known = await layout(tx, blocId));
  return known;
}

/**
 * Scan limits count what is committed and what this transaction's earlier units added
 * (a group commit writes their counters only at its end). The period always starts at
 * midnight, so whole days of counters answer it.
 */
async function checkScanLimit(tx: Tx, blocId: string, plan: NonNullable<InsertPlan["scanLimit"]>): Promise<void> {
  const counted = await countSince(tx, blocId, plan.since, undefined) +
    tx.pending.recordsSince(blocId, plan.since);
  if (counted >= plan.limit) {
    throw new LimitReachedError(
      `This bloc has reached its scan limit of ${plan.limit} records${plan.period ? ` for this ${plan.period}` : ""}`,
    );
  }
}

/** The last counter handed out for this template, starting from the highest value already in the bloc. */
async function lastSequence(tx: Tx, blocId: string, slug: string, t: SequenceTemplate): Promise<number> {
  const saved = await tx.records.lastSequence(blocId, slug, t);
  if (saved !== undefined) return saved;
  let highest = 0;
  let after: string | null = null;
  for (;;) {
    const values = await tx.records.valuesWithPrefix(blocId, slug, t, after, 1000);
    for (const value of values) highest = Math.max(highest, sequenceOf(t, value) ?? 0);
    if (values.length < 1000) return highest;
    after = values[values.length - 1]!;
  }
}

/**
 * Fills one autogenerate field in `values`: the client's value when free, else the next
 * free counter value. Returns the replacement to report, if the client's was taken.
 */
async function autogenerate(tx: Tx, blocId: string, { field, template, sent }: AutogeneratePlan, values: Record<string, string>): Promise<Replacement[]> {
  const group = template.groupBy === null ? undefined : { slug: template.groupBy, value: template.group };
  if (sent !== "" && !(await taken(tx, blocId, { slug: field.slug, value: sent, group }))) {
    values[field.slug] = sent;
    const seq = sequenceOf(template, sent);
    if (seq !== null) await tx.records.saveSequence(blocId, field.slug, template, seq);
    return [];
  }
  let seq = await lastSequence(tx, blocId, field.slug, template);
  let value: string;
  do {
    seq += 1;
    if (seq > MAX_SEQUENCE) throw new LimitReachedError(`${field.slug} (${field.name}) has used up its counter`);
    value = render(template, seq);
  } while (await taken(tx, blocId, { slug: field.slug, value, group }));
  await tx.records.saveSequence(blocId, field.slug, template, seq);
  values[field.slug] = value;
  return sent === "" ? [] : [{ field: field.slug, sent, value }];
}

/** Inserts a record after the plan's checks and fills; throws RuleViolationError or LimitReachedError, writing nothing. */
export async function insertRecord(tx: Tx, record: NewRecord, plan: InsertPlan): Promise<Inserted> {
  const { blocId } = record;
  await lockBloc(tx, blocId);
  if (plan.scanLimit) await checkScanLimit(tx, blocId, plan.scanLimit);
  const values: Record<string, string> = { ...record.values };
  const replacements: Replacement[] = [];
  for (const item of plan.autogenerate) replacements.push(...(await autogenerate(tx, blocId, item, values)));
  for (const field of plan.unique) {
    const value = ownValue(values, field.slug);
    if (value !== undefined && value !== "" && await taken(tx, blocId, { slug: field.slug, value })) {
      throw uniqueViolation(field, value);
    }
  }
  const id = await tx.records.insertRecord({ ...record, values });
  for (const file of plan.files) await tx.files.insertFile(file, blocId, id, record.createdAt);
  tx.deltas.add({ ...record, values }, await lockedLayout(tx, blocId), 1);
  await tx.events.appendEvents(blocId, [recordAdded({ ...record, id, values }, plan.tokenId)]);
  return { id, values, replacements };
}

/** Inserts records as they are, with no rules to check (imports and seeding); returns their IDs. */
export async function importRecords(tx: Tx, records: readonly NewRecord[]): Promise<number[]> {
  const ids: number[] = [];
  const locked = new Map<string, Layout>();
  for (const record of records) {
    let fields = locked.get(record.blocId);
    if (!fields) {
      await lockBloc(tx, record.blocId);
      locked.set(record.blocId, fields = await layout(tx, record.blocId));
    }
    ids.push(await tx.records.insertRecord(record));
    tx.deltas.add(record, fields, 1);
  }
  return ids;
}

/**
 * Refuses an update that would leave two records with one value of a unique key:
 * among the updated records themselves, or between one of them and a record the
 * update does not touch. Values are compared within the key's group, if it has one.
 */
async function checkUnique(tx: Tx, blocId: string, before: readonly StoredRecord[],
  fields: Readonly<Record<string, string>>, keys: readonly UniqueKey[]): Promise<void> {
  const updated = new Set(before.map((record) => record.id));
  for (const key of keys) {
    const seen = new Set<string>();
    for (const record of before) {
      const after: Record<string, string> = { ...record.values, ...fields };
      const value = ownValue(after, key.field.slug) ?? "";
      if (value === "") continue;
      const group = key.groupBy === null ? undefined : { slug: key.groupBy, value: ownValue(after, key.groupBy) ?? "" };
      const identity = JSON.stringify([group?.value ?? null, value]);
      if (seen.has(identity)) throw uniqueViolation(key.field, value);
      seen.add(identity);
      const holders = await tx.records.holders(blocId, { slug: key.field.slug, value, group }, updated.size + 1);
      if (holders.some((id) => !updated.has(id))) throw uniqueViolation(key.field, value);
    }
  }
}

/**
 * Sets `values` (field slugs, or `submitted_status`) on every record the filter selects;
 * returns their IDs ascending. A value of a unique key already held by a record the
 * update does not touch, or set on several, throws RuleViolationError (the same refusal
 * either way) and changes nothing. What changed in each record enters its history, as
 * made by `actor`.
 */
export async function updateRecords(tx: Tx, filter: RecordFilter, values: Readonly<Record<string, string>>,
  unique: readonly UniqueKey[], actor: Actor): Promise<number[]> {
  await lockBloc(tx, filter.blocId);
  const { [STATUS_KEY]: status, ...fields } = values;
  const before = await tx.records.findRecords(filter);
  if (before.length === 0) return [];
  const affected = unique.filter((k) => Object.hasOwn(fields, k.field.slug) || (k.groupBy !== null && Object.hasOwn(fields, k.groupBy)));
  if (affected.length > 0) await checkUnique(tx, filter.blocId, before, fields, affected);
  // The old values leave the counters and the new ones enter, in this transaction.
  const fieldsOf = await layout(tx, filter.blocId);
  for (const record of before) {
    const counted = { ...record, blocId: filter.blocId };
    const changed = Object.entries(fields).filter(([slug, value]) => (ownValue(record.values, slug) ?? "") !== value);
    if (changed.some(([slug]) => fieldsOf.profileSlugs.includes(slug))) {
      // The record moves between profile segments: it leaves them whole and enters the new ones whole.
      tx.deltas.add(counted, fieldsOf, -1);
      tx.deltas.add({ ...counted, values: { ...record.values, ...fields } }, fieldsOf, 1);
      continue;
    }
    for (const [slug, value] of changed) {
      tx.deltas.addValue(counted, fieldsOf, slug, ownValue(record.values, slug) ?? "", -1);
      tx.deltas.addValue(counted, fieldsOf, slug, value, 1);
    }
  }
  const entries = historyOf(before, fields, status, actor);
  await tx.records.insertHistory(filter.blocId, entries);
  const ids = await tx.records.updateValues(filter, fields, status === undefined ? undefined : Number(status));
  // One event per record the update changed, last in the unit (appendEvents).
  await tx.events.appendEvents(filter.blocId, recordsUpdated(before, entries));
  return ids;
}

/** Recounts a bloc's counters from its records, after its profile-filtered fields changed. */
export async function rebuildCounters(tx: Tx, blocId: string): Promise<void> {
  await recountBloc(tx, blocId);
}
