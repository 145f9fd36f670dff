import { canSee, RECORD_EVENT_TYPES, type RecordEventData } from "../domain/events.js";
import type { Visibility } from "../domain/model.js";
import type { StoredEvent } from "../domain/ports/store.js";

const parsed = new WeakMap<StoredEvent, RecordEventData>();

/** A record event's data, parsed once however many streams show it (streams at one position share their reads). */
export function dataOf(event: StoredEvent): RecordEventData {
  let data = parsed.get(event);
  if (!data) {
    data = JSON.parse(event.data) as RecordEventData;
    parsed.set(event, data);
  }
  return data;
}

/** Whether a live stream shows the event to a reader with `visibility`: a record event of a record they see. */
export function streamedTo(event: StoredEvent, visibility: Visibility): boolean {
  return RECORD_EVENT_TYPES.includes(event.type) && canSee(visibility, dataOf(event).record);
}
