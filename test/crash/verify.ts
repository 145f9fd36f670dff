import type { AddRequest, Ledger, UpdateRequest } from "./workload.js";

/**
 * What must hold of the records after any number of kills, given what the clients were
 * told: every acknowledged add is there with its ID and exact values; a record no
 * client sent, or one that was refused, is not; IDs and autogenerate values never
 * repeat; and each update applied to all the records it matched or to none.
 */

export interface StoredRecord {
  readonly id: number;
  readonly values: Readonly<Record<string, string>>;
}

export interface Totals {
  acknowledged: number;
  found: number;
  lost: number;
  /** Adds whose connection failed: each may or may not have been committed. */
  inDoubt: number;
  inDoubtStored: number;
  updatesAcknowledged: number;
  /** Acknowledged updates that matched two records or more. */
  updatesSeveral: number;
  updatesInDoubt: number;
}

const value = (record: StoredRecord, slug: string): string => record.values[slug] ?? "";

/** The differences between a stored record and the add that sent it. */
function mismatches(add: AddRequest, record: StoredRecord): string[] {
  const wrong: string[] = [];
  const expect = (slug: string, ok: boolean, what: string): void => {
    if (!ok) wrong.push(`${slug} is ${JSON.stringify(value(record, slug))}, expected ${what}`);
  };
  expect("field_3", value(record, "field_3") === add.group, add.group);
  expect("field_5", value(record, "field_5") === add.payload, JSON.stringify(add.payload));
  const docket = value(record, "field_2");
  if (add.docketGiven !== undefined) expect("field_2", docket === add.docketGiven, `${add.docketGiven} (as the server reported)`);
  else if (add.docketSent !== undefined && add.outcome === "acknowledged") expect("field_2", docket === add.docketSent, `${add.docketSent} (as sent)`);
  else expect("field_2", /^DKT-\d{6}$/.test(docket), "DKT-nnnnnn");
  expect("field_7", /^T-\d{5}$/.test(value(record, "field_7")), "T-nnnnn");
  expect("field_6", (value(record, "field_6") !== "") === (add.file !== undefined), add.file ? "a file reference" : "no file");
  const stamp = value(record, "field_4");
  expect("field_4", stamp === "" || stamp.startsWith(`${add.group}:`), `"" or a stamp of ${add.group}`);
  return wrong;
}

/** Checks the records against the ledger; returns the failures, and the totals. */
export function check(records: readonly StoredRecord[], ledger: Ledger): { failures: string[]; totals: Totals } {
  const failures: string[] = [];
  const totals: Totals = {
    acknowledged: 0, found: 0, lost: 0, inDoubt: 0, inDoubtStored: 0, updatesAcknowledged: 0, updatesSeveral: 0, updatesInDoubt: 0,
  };
  const sent = new Map<string, AddRequest>();
  for (const add of ledger.adds) if (!add.duplicate) sent.set(add.serial, add);
  const bySerial = new Map<string, StoredRecord>();
  const byId = new Map<number, StoredRecord>();
  for (const record of records) {
    const serial = value(record, "field_1");
    if (bySerial.has(serial)) failures.push(`serial ${serial} is held by records ${bySerial.get(serial)!.id} and ${record.id}`);
    bySerial.set(serial, record);
    byId.set(record.id, record);
    if (!sent.has(serial)) failures.push(`record ${record.id} (${serial}) was never sent`);
  }

  // Adds.
  const ids = new Map<number, string>();
  for (const add of sent.values()) {
    const record = bySerial.get(add.serial);
    if (add.outcome === "acknowledged") {
      totals.acknowledged += 1;
      if (ids.has(add.id!)) failures.push(`ID ${add.id} was acknowledged for ${ids.get(add.id!)} and for ${add.serial}`);
      ids.set(add.id!, add.serial);
      if (!record) {
        totals.lost += 1;
        failures.push(`lost: ${add.serial}, acknowledged as record ${add.id}`);
        continue;
      }
      totals.found += 1;
      if (record.id !== add.id) failures.push(`${add.serial} was acknowledged as record ${add.id} but is record ${record.id}`);
    } else if (add.outcome === "unknown" || add.outcome === undefined) {
      totals.inDoubt += 1;
      if (record) totals.inDoubtStored += 1;
    } else if (record) {
      failures.push(`${add.serial} was refused (${add.answer ?? ""}) but is stored as record ${record.id}`);
    }
    if (record) for (const wrong of mismatches(add, record)) failures.push(`record ${record.id} (${add.serial}): ${wrong}`);
  }

  // Autogenerate values: never twice, the grouped one never twice within its group.
  const seen = new Map<string, number>();
  for (const record of records) {
    for (const key of [value(record, "field_2"), `${value(record, "field_3")} ${value(record, "field_7")}`]) {
      if (seen.has(key)) failures.push(`autogenerate value ${key} is held by records ${seen.get(key)} and ${record.id}`);
      seen.set(key, record.id);
    }
  }

  // Updates, group by group.
  const addsOf = new Map<string, AddRequest[]>();
  for (const add of sent.values()) {
    if (add.outcome === "acknowledged") addsOf.set(add.group, [...(addsOf.get(add.group) ?? []), add]);
  }
  for (const [group, updates] of ledger.updates) {
    const acknowledgedAdds = addsOf.get(group) ?? [];
    const members = records.filter((record) => value(record, "field_3") === group);
    for (const update of updates) {
      if (update.outcome === "acknowledged") {
        totals.updatesAcknowledged += 1;
        if (update.ids!.length >= 2) totals.updatesSeveral += 1;
        // Its answer: every record committed before it began, all of the group's.
        const matched = new Set(update.ids);
        for (const add of acknowledgedAdds) {
          if (add.ackedAt! < update.sentAt && !matched.has(add.id!)) {
            failures.push(`update ${update.stamp} did not match record ${add.id}, acknowledged before it was sent`);
          }
        }
        for (const id of update.ids!) {
          if (value(byId.get(id) ?? { id, values: {} }, "field_3") !== group) failures.push(`update ${update.stamp} answered record ${id}, not of ${group}`);
        }
      } else if (update.outcome !== "refused") {
        totals.updatesInDoubt += 1;
      }
    }
    failures.push(...checkGroup(group, members, updates, acknowledgedAdds));
  }
  return { failures, totals };
}

/**
 * The group's records as the updates left them. Each update sets one stamp on every
 * record of the group, so after any sequence of whole updates all stamped records
 * carry the same stamp, that of the last update applied; two stamps mean one update
 * was applied to some of its records and not others.
 */
function checkGroup(group: string, members: readonly StoredRecord[], updates: readonly UpdateRequest[], adds: readonly AddRequest[]): string[] {
  const failures: string[] = [];
  const stamps = new Set(members.map((record) => value(record, "field_4")).filter((stamp) => stamp !== ""));
  if (stamps.size > 1) return [`${group} holds the stamps of several updates (${[...stamps].join(", ")}): an update was half applied`];
  const stamp = [...stamps][0];
  const applied = stamp === undefined ? undefined : updates.find((update) => update.stamp === stamp);
  if (stamp !== undefined && !applied) return [`${group} holds ${stamp}, which no update sent`];
  const lastAcknowledged = [...updates].reverse().find((update) => update.outcome === "acknowledged" && update.ids!.length > 0);
  if (lastAcknowledged && (!applied || applied.index < lastAcknowledged.index)) {
    failures.push(`update ${lastAcknowledged.stamp} was acknowledged but ${group} holds ${stamp ?? "no stamp"}: lost`);
  }
  if (!applied) return failures;
  const holders = new Set(members.filter((record) => value(record, "field_4") === stamp).map((record) => record.id));
  if (applied.outcome === "refused") failures.push(`update ${applied.stamp} was refused but applied`);
  if (applied.outcome === "acknowledged") {
    const answered = new Set(applied.ids);
    const missing = [...answered].filter((id) => !holders.has(id));
    const extra = [...holders].filter((id) => !answered.has(id));
    if (missing.length + extra.length > 0) {
      failures.push(`update ${applied.stamp} answered records ${[...answered].join(",")} but holds ${[...holders].join(",")}: not all or none`);
    }
  }
  // Records committed before the update began must all carry it (for one in doubt too).
  for (const add of adds) {
    if (add.ackedAt! < applied.sentAt && !holders.has(add.id!)) {
      failures.push(`update ${applied.stamp} is applied, but not to record ${add.id}, acknowledged before it was sent: half applied`);
    }
  }
  return failures;
}

/** An event or a history entry as its table holds it (the columns this check reads). */
export interface EventRow {
  readonly seq?: unknown;
  readonly type?: unknown;
  readonly record_id?: unknown;
}

/**
 * Events are written in the transaction of their change, so after any kill they agree with
 * the records exactly: one record.added per stored record and none for a record that is
 * not; as many record.updated events of a record as its history has entries; and the
 * bloc's numbers run 1, 2, 3, … with no gap and no repeat.
 */
export function checkEvents(records: readonly StoredRecord[], events: readonly EventRow[], history: readonly EventRow[]): string[] {
  const failures: string[] = [];
  const seqs = events.map((e) => Number(e.seq)).sort((a, b) => a - b);
  const gap = seqs.findIndex((seq, i) => seq !== i + 1);
  if (gap >= 0) failures.push(`events: number ${gap + 1} is ${seqs[gap]}: a gap or a repeat`);
  const count = (rows: readonly EventRow[], type?: string): Map<number, number> => {
    const counts = new Map<number, number>();
    for (const row of rows) {
      if (type !== undefined && row.type !== type) continue;
      counts.set(Number(row.record_id), (counts.get(Number(row.record_id)) ?? 0) + 1);
    }
    return counts;
  };
  const added = count(events, "record.added");
  const updated = count(events, "record.updated");
  const changed = count(history);
  const stored = new Set(records.map((r) => r.id));
  for (const record of records) {
    if (added.get(record.id) !== 1) failures.push(`events: record ${record.id} has ${added.get(record.id) ?? 0} record.added events`);
    if ((updated.get(record.id) ?? 0) !== (changed.get(record.id) ?? 0)) {
      failures.push(`events: record ${record.id} has ${updated.get(record.id) ?? 0} record.updated events and ${changed.get(record.id) ?? 0} history entries`);
    }
  }
  for (const id of added.keys()) if (!stored.has(id)) failures.push(`events: record.added for record ${id}, which is not stored`);
  return failures;
}
