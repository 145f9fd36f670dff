import crypto from "node:crypto";
import { call } from "../support/http.js";
import { postMultipart } from "../support/upload.js";
import { Prng } from "../fuzz/prng.js";

/**
 * The crash test's clients and what they were told. Adders add records (some with a
 * file, some pre-filling an autogenerate value that may be taken, a few reusing a
 * serial that is taken); updaters set a stamp on every record of a group. Every request
 * is written down with its outcome: answered (acknowledged or refused), or unknown (the
 * connection failed: the server was killed, before or after committing it).
 */

export const BLOC = "crash";
export const GROUPS = 40;
export const UPDATERS = 4;
export const ADDERS = 16;

/** The bloc's fields (slugs field_1 … field_7 by position). */
export const FIELDS = [
  { name: "Serial", unique: true },
  { name: "Docket", type: "autogenerate", format: "DKT-{seq:6}" },
  { name: "Group", indexed: true },
  { name: "Stamp" },
  { name: "Payload" },
  { name: "Photo", type: "file" },
  { name: "Ticket", type: "autogenerate", format: "T-{seq:5 by field_3}" },
] as const;

export type Outcome = "acknowledged" | "refused" | "unknown";

export interface AddRequest {
  readonly serial: string;
  readonly group: string;
  readonly payload: string;
  /** The Docket value the client sent, if it pre-filled one. */
  readonly docketSent: string | undefined;
  /** SHA-256 (hex) and size of the file sent with it, if any. */
  readonly file: { readonly sha256: string; readonly size: number } | undefined;
  /** Whether it reused an acknowledged record's serial on purpose (it must be refused). */
  readonly duplicate: boolean;
  outcome?: Outcome;
  id?: number;
  /** The Docket value the server reported having put in place of the one sent. */
  docketGiven?: string;
  /** When it was acknowledged, on the clock the workload shares. */
  ackedAt?: number;
  answer?: string;
}

export interface UpdateRequest {
  readonly group: string;
  /** Position among its group's updates, from 1. */
  readonly index: number;
  readonly stamp: string;
  /** When it was sent, on the workload's clock: every add acknowledged before then was committed before it began. */
  readonly sentAt: number;
  outcome?: Outcome;
  ids?: number[];
}

export interface Ledger {
  readonly adds: AddRequest[];
  /** Per group, its updates in the order sent (one updater owns each group, so they never overlap). */
  readonly updates: Map<string, UpdateRequest[]>;
  /** Answers no client should get (a 5xx, a 4xx for a valid add, a duplicate accepted…). */
  readonly unexpected: string[];
}

/** Where the server is: the current URL, or a wait for the next start after a kill. */
export interface ServerLink {
  url(): Promise<string>;
  /** Whether the workload was told to stop. */
  stopped(): boolean;
}

/** The fuzz test's seeded generator as a function, so that a failing run's data can be made again. */
export function random(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.float();
}

/** Text with what breaks careless storage: quotes, backslashes, newlines, accents, CJK, emoji. */
const ALPHABET = ["a", "Z", "0", " ", "\"", "'", "\\", "\n", "\t", "é", "ß", "漢", "字", "🙂", "%", "_", "{", "}", "<", "&"];

function text(next: () => number, max: number): string {
  const length = Math.floor(next() * max);
  let out = "";
  for (let i = 0; i < length; i += 1) out += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return out;
}

function failedConnection(error: unknown): boolean {
  // node:http's (ECONNREFUSED, ECONNRESET, socket hang up) and fetch's ("fetch failed").
  return error instanceof Error;
}

export class Workload {
  readonly ledger: Ledger = { adds: [], updates: new Map(), unexpected: [] };
  /** Acknowledged adds, whose serials the duplicates reuse. */
  private readonly acknowledged: AddRequest[] = [];
  private clock = 0;

  constructor(private readonly link: ServerLink, private readonly token: string, private readonly seed: number) {}

  private tick(): number {
    this.clock += 1;
    return this.clock;
  }

  /** Runs every client until the link says stop. */
  run(): Promise<void> {
    const clients: Promise<void>[] = [];
    for (let c = 0; c < ADDERS; c += 1) clients.push(this.adder(c));
    for (let u = 0; u < UPDATERS; u += 1) clients.push(this.updater(u));
    return Promise.all(clients).then(() => undefined);
  }

  private async adder(c: number): Promise<void> {
    const next = random(this.seed * 101 + c);
    for (let n = 0; !this.link.stopped(); n += 1) {
      const acknowledged = this.acknowledged;
      const duplicate = n % 20 === 19 && acknowledged.length > 0;
      const withFile = next() < 0.25;
      const content = withFile ? crypto.randomBytes(1 + Math.floor(next() * 20_000)) : undefined;
      const request: AddRequest = {
        serial: duplicate ? acknowledged[Math.floor(next() * acknowledged.length)]!.serial : `S-${c}-${n}`,
        group: `G${Math.floor(next() * GROUPS)}`,
        payload: text(next, 300),
        docketSent: next() < 0.1 ? "DKT-000001" : undefined,
        file: content ? { sha256: crypto.createHash("sha256").update(content).digest("hex"), size: content.length } : undefined,
        duplicate,
      };
      this.ledger.adds.push(request);
      const values: Record<string, string> = { field_1: request.serial, field_3: request.group, field_5: request.payload };
      if (request.docketSent) values.field_2 = request.docketSent;
      const url = await this.link.url();
      let status: number;
      let body: { returnedStationID?: number; autogenerateReplacements?: { field: string; value: string }[] } | undefined;
      let answer: string;
      try {
        if (content) {
          const reply = await postMultipart(url, this.token, { scanStationID: BLOC, dataToAdd: JSON.stringify(values) },
            [{ slug: "field_6", content, filename: `${request.serial}.bin` }]);
          ({ status, text: answer } = reply);
          body = reply.json;
        } else {
          const reply = await call(url, "POST", "/api/add-data", { token: this.token, json: { scanStationID: BLOC, dataToAdd: values } });
          ({ status, text: answer } = reply);
          body = reply.json;
        }
      } catch (error) {
        if (!failedConnection(error)) throw error;
        request.outcome = "unknown";
        continue;
      }
      request.answer = answer;
      if (status === 200 && body?.returnedStationID !== undefined && !duplicate) {
        request.outcome = "acknowledged";
        request.id = body.returnedStationID;
        request.docketGiven = body.autogenerateReplacements?.find((r) => r.field === "field_2")?.value;
        request.ackedAt = this.tick();
        this.acknowledged.push(request);
      } else if (status === 400 && duplicate) {
        request.outcome = "refused";
      } else {
        request.outcome = status === 200 ? "acknowledged" : "refused";
        this.ledger.unexpected.push(`add ${request.serial}${duplicate ? " (a taken serial)" : ""} answered ${status} ${answer}`);
      }
    }
  }

  private async updater(u: number): Promise<void> {
    const owned = Array.from({ length: GROUPS }, (_, g) => `G${g}`).filter((_, g) => g % UPDATERS === u);
    for (let n = 0; !this.link.stopped(); n += 1) {
      const group = owned[n % owned.length]!;
      const list = this.ledger.updates.get(group) ?? [];
      this.ledger.updates.set(group, list);
      const index = list.length + 1;
      const url = await this.link.url();
      const request: UpdateRequest = { group, index, stamp: `${group}:${index}`, sentAt: this.tick() };
      list.push(request);
      try {
        const reply = await call(url, "POST", "/api/update-records-by-matching-values", {
          token: this.token, json: { blocId: BLOC, fieldsToUpdate: { field_4: request.stamp }, searchItems: { field_3: group } },
        });
        if (reply.status === 200 && Array.isArray(reply.json?.updated_record_ids)) {
          request.outcome = "acknowledged";
          request.ids = reply.json.updated_record_ids as number[];
        } else {
          request.outcome = "refused";
          this.ledger.unexpected.push(`update ${request.stamp} answered ${reply.status} ${reply.text}`);
        }
      } catch (error) {
        if (!failedConnection(error)) throw error;
        request.outcome = "unknown";
      }
    }
  }
}
