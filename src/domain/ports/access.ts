import type { Grant, RestrictionMode } from "../model.js";

/* Who may do what on a bloc: grants of users and roles, and restrictions. */

/** What decides a user's rights on one bloc. */
export interface AccessFacts {
  /** The user's own grant and those of each of their roles. */
  readonly grants: readonly Grant[];
  /** The user's own restriction on the bloc, overriding the bloc's default. */
  readonly restriction: RestrictionMode | undefined;
}

/** Who holds what on one bloc, as the admin's access listing shows it (names beside IDs). */
export interface BlocAccessList {
  readonly grants: readonly { readonly userId: string; readonly userName: string; readonly grant: Grant }[];
  readonly roleGrants: readonly { readonly roleId: string; readonly roleName: string; readonly grant: Grant }[];
  readonly restrictions: readonly { readonly userId: string; readonly userName: string; readonly mode: RestrictionMode }[];
}

export interface AccessReads {
  accessFacts(blocId: string, userId: string): Promise<AccessFacts>;
  /** Every grant, role grant and restriction on the bloc, by holder ID. */
  blocAccessList(blocId: string): Promise<BlocAccessList>;
  /** The users restricted to their own records on the bloc, read as committed (never cached): what the counters follow. */
  ownRestricted(blocId: string): Promise<string[]>;
}

/** Each atomic on its own: outside a unit of work, each is a transaction of its own. */
export interface AccessWrites {
  setGrant(blocId: string, userId: string, grant: Grant): Promise<void>;
  removeGrant(blocId: string, userId: string): Promise<void>;
  setRoleGrant(blocId: string, roleId: string, grant: Grant): Promise<void>;
  removeRoleGrant(blocId: string, roleId: string): Promise<void>;
  setRestriction(blocId: string, userId: string, mode: RestrictionMode): Promise<void>;
  removeRestriction(blocId: string, userId: string): Promise<void>;
}

export interface AccessStore extends AccessReads, AccessWrites {}
