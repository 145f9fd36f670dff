import type {
  AccessWrites, AccountWrites, BlocWrites, TokenWrites, TxViews,
} from "../domain/ports/store.js";

/*
 * How every engine assembles its views (domain/ports/views.ts) from what it has: classes
 * of queries, modules of functions that take a connection first, and, outside any
 * transaction, config writes that each run as a transaction of their own. Assembled
 * once, when a store or a transaction opens, so that no class forwards calls by hand.
 */

/** The functions of a module that take a connection of type C first, with that connection given. */
export type OnConnection<M, C> = {
  readonly [K in keyof M as M[K] extends (connection: C, ...args: never[]) => unknown ? K : never]:
    M[K] extends (connection: C, ...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/**
 * The functions of `module` (a module's namespace, or an object of functions) on one
 * connection: each called with `connection` first and answering a promise, so that a
 * synchronous query (SQLite's) answers as the port's asynchronous method does, a throw
 * included. Functions of the module that take no connection are typed away.
 */
export function onConnection<M extends object, C>(connection: C, module: M): OnConnection<M, C> {
  const view: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(module)) {
    if (typeof value !== "function") continue;
    const query = value as (connection: C, ...args: unknown[]) => unknown;
    view[name] = (...args: unknown[]): Promise<unknown> => {
      try {
        return Promise.resolve(query(connection, ...args));
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return view as OnConnection<M, C>;
}

/** Names of the methods of `part`, its classes' included. */
function methodNames(part: object): string[] {
  const names = new Set<string>();
  for (let level: object | null = part; level !== null && level !== Object.prototype; level = Object.getPrototypeOf(level) as object | null) {
    for (const name of Object.getOwnPropertyNames(level)) {
      if (name !== "constructor" && typeof (part as Record<string, unknown>)[name] === "function") names.add(name);
    }
  }
  return [...names];
}

/**
 * One view made of several parts: every method of each, bound to the part it belongs to;
 * a later part's method takes the place of an earlier one's of the same name. Of one
 * part, its methods taken once (a proxy's, which would make one at every call).
 */
export function merge<A extends object>(a: A): A;
export function merge<A extends object, B extends object>(a: A, b: B): A & B;
export function merge<A extends object, B extends object, C extends object>(a: A, b: B, c: C): A & B & C;
export function merge<A extends object, B extends object, C extends object, D extends object>(a: A, b: B, c: C, d: D): A & B & C & D;
export function merge(...parts: object[]): object {
  const view: Record<string, unknown> = {};
  for (const part of parts) {
    for (const name of methodNames(part)) view[name] = ((part as Record<string, unknown>)[name] as (...a: unknown[]) => unknown).bind(part);
  }
  return view;
}

/** Every method name of a port, each once: a compile error when one is missing or unknown. */
export type MethodNames<W> = { readonly [K in keyof W]-?: true };

export const ACCOUNT_WRITES: MethodNames<AccountWrites> = {
  createUser: true, setProfile: true, updateAccount: true, createRole: true, setRoleMember: true, deleteRole: true,
};
export const TOKEN_WRITES: MethodNames<TokenWrites> = { createToken: true, revokeToken: true };
export const BLOC_WRITES: MethodNames<BlocWrites> = {
  createModule: true, createBloc: true, addField: true, updateBlocSettings: true, updateField: true, retireField: true,
  deleteBloc: true, deleteModule: true,
};
export const ACCESS_WRITES: MethodNames<AccessWrites> = {
  setGrant: true, removeGrant: true, setRoleGrant: true, removeRoleGrant: true, setRestriction: true, removeRestriction: true,
};

/** How a store runs a unit of work: its `transaction`. */
export type RunInTransaction = <T>(work: (tx: TxViews) => Promise<T>) => Promise<T>;

/**
 * The writes `names` of one view as the Store offers them outside any unit of work: each
 * a transaction of its own (`run`), doing the same write on the transaction's view.
 */
export function committed<V extends keyof TxViews, W>(
  run: RunInTransaction, view: V, names: TxViews[V] extends W ? MethodNames<W> : never,
): W {
  const writes: Record<string, unknown> = {};
  for (const name of Object.keys(names)) {
    writes[name] = (...args: unknown[]): Promise<unknown> =>
      run((tx) => (tx[view] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[name]!(...args));
  }
  return writes as W;
}
