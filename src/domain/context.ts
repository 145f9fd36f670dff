import type { IdStyle } from "../config.js";
import type { Store } from "../store/store.js";
import type { Clock } from "./clock.js";

/** What every domain operation needs, built once at start-up. */
export interface Context {
  readonly store: Store;
  readonly now: Clock;
  readonly idStyle: IdStyle;
}
