import type { Context } from "../domain/context.js";
import type { Visibility } from "../domain/model.js";
import { streamedTo } from "./event-data.js";

/** Events read per step of a scan, and the most bytes of their data. */
const BATCH = 500;
const BATCH_BYTES = 4 * 1024 * 1024;
/** (bloc, visibility) pairs whose scan this process remembers; the oldest is forgotten first. */
const REMEMBERED = 1_000;

interface Scanned {
  /** Every kept event up to this number has been looked at… */
  readonly upTo: number;
  /** …and this is the last of them the reader may see (0: none). */
  readonly last: number;
}

/**
 * The number of the last event, up to a position, that a reader with a given visibility
 * may see (0 when no kept event is theirs). A `reset` carries it as its ID rather than the
 * position itself: the position moves with every hidden change, so two probes would tell
 * that something happened; this number moves only when the reader may see something new,
 * and resuming from it loses nothing of theirs, since everything after it up to the
 * position is hidden from them. Events are only ever appended, so each scan goes on from
 * where the last one for the same bloc and visibility stopped: a reset costs a read of the
 * events since, not of the whole bloc.
 */
export class LastVisible {
  private readonly scanned = new Map<string, Scanned>();

  constructor(private readonly ctx: Context) {}

  async upTo(blocId: string, visibility: Visibility, position: number): Promise<number> {
    const key = `${blocId}\u0000${JSON.stringify(visibility)}`;
    const known = this.scanned.get(key);
    const start = known && known.upTo <= position ? known : { upTo: 0, last: 0 };
    let { upTo: cursor, last } = start;
    while (cursor < position) {
      const batch = await this.ctx.store.events.eventsAfter(blocId, cursor, BATCH, BATCH_BYTES);
      if (batch.length === 0) break;
      for (const event of batch) {
        if (event.seq > position) break;
        if (streamedTo(event, visibility)) last = event.seq;
      }
      cursor = Math.min(position, batch.at(-1)!.seq);
    }
    const latest = this.scanned.get(key);
    // A scan that ran alongside may have gone further: the furthest is kept.
    if (!latest || latest.upTo <= position) {
      this.scanned.delete(key);
      this.scanned.set(key, { upTo: position, last });
      if (this.scanned.size > REMEMBERED) this.scanned.delete(this.scanned.keys().next().value!);
    }
    return last;
  }
}
