import type { Store } from "../domain/ports/store.js";
import { storeDuration } from "./registry.js";

type Method = (...args: unknown[]) => unknown;

/** The Store's views (domain/ports/store.ts), whose calls are timed like the Store's own. */
const VIEWS: ReadonlySet<string> = new Set([
  "records", "files", "counters", "accounts", "tokens", "blocs", "access", "events", "idempotency", "maintenance",
]);

/**
 * `target` with each of its calls timed, labelled with the method's name. Only calls that
 * return a promise are timed; everything else passes through untouched, and a method
 * replaced on the target is seen (the wrapper is looked up per function).
 */
function timed<T extends object>(target: T, views: ReadonlySet<string>): T {
  const wrapped = new WeakMap<Method, Method>();
  const timedViews = new WeakMap<object, object>();
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof property !== "string") return value;
      if (views.has(property) && typeof value === "object" && value !== null) {
        let view = timedViews.get(value);
        if (!view) {
          view = timed(value, new Set());
          timedViews.set(value, view);
        }
        return view;
      }
      if (typeof value !== "function" || property === "constructor") return value;
      const method = value as Method;
      let wrapper = wrapped.get(method);
      if (!wrapper) {
        const operation = property;
        wrapper = (...args: unknown[]): unknown => {
          const stop = storeDuration.startTimer({ operation });
          const result = method.apply(object, args);
          if (result instanceof Promise) {
            result.then(() => stop(), () => stop());
          }
          return result;
        };
        wrapped.set(method, wrapper);
      }
      return wrapper;
    },
  });
}

/**
 * The store with each of its calls timed (bloc_store_operation_duration_seconds, labelled
 * with the method's name: `findBloc`, not `blocs.findBloc`), its views' calls included,
 * so that the domain and the engines stay free of metrics.
 */
export function timedStore(store: Store): Store {
  return timed(store, VIEWS);
}
