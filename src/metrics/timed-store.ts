import type { Store } from "../domain/ports/store.js";
import { storeDuration } from "./registry.js";

type Method = (...args: unknown[]) => unknown;

/**
 * The store with each of its calls timed (bloc_store_operation_duration_seconds, labelled
 * with the method's name), so that the domain and the engines stay free of metrics. Only
 * calls that return a promise are timed; everything else passes through untouched, and
 * a method replaced on the store is seen (the wrapper is looked up per function).
 */
export function timedStore(store: Store): Store {
  const wrapped = new WeakMap<Method, Method>();
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function" || typeof property !== "string" || property === "constructor") return value;
      const method = value as Method;
      let timed = wrapped.get(method);
      if (!timed) {
        const operation = property;
        timed = (...args: unknown[]): unknown => {
          const stop = storeDuration.startTimer({ operation });
          const result = method.apply(target, args);
          if (result instanceof Promise) {
            result.then(() => stop(), () => stop());
          }
          return result;
        };
        wrapped.set(method, timed);
      }
      return timed;
    },
  });
}
