import type { Bloc, BlocSettings, Field, Grant, Module, RestrictionMode, Role, User, UserRole } from "../domain/model.js";
import type { AccountChanges, NewToken, StoreReads, TransactionOptions, Tx } from "../domain/ports/store.js";

/**
 * What every engine's Store shares: reads go to the engine's `direct` reader (outside
 * any transaction), and each config write is a transaction of its own.
 */
export abstract class BaseStore {
  protected abstract readonly direct: StoreReads;
  abstract transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;

  findUser(id: string): ReturnType<StoreReads["findUser"]> { return this.direct.findUser(id); }
  findRole(id: string): ReturnType<StoreReads["findRole"]> { return this.direct.findRole(id); }
  listRoles(): ReturnType<StoreReads["listRoles"]> { return this.direct.listRoles(); }
  rolesOf(userId: string): ReturnType<StoreReads["rolesOf"]> { return this.direct.rolesOf(userId); }
  findTokenByHash(hash: string): ReturnType<StoreReads["findTokenByHash"]> { return this.direct.findTokenByHash(hash); }
  findLogin(email: string): ReturnType<StoreReads["findLogin"]> { return this.direct.findLogin(email); }
  passwordOf(userId: string): ReturnType<StoreReads["passwordOf"]> { return this.direct.passwordOf(userId); }
  findModule(id: string): ReturnType<StoreReads["findModule"]> { return this.direct.findModule(id); }
  listModules(): ReturnType<StoreReads["listModules"]> { return this.direct.listModules(); }
  findBloc(id: string): ReturnType<StoreReads["findBloc"]> { return this.direct.findBloc(id); }
  listBlocs(): ReturnType<StoreReads["listBlocs"]> { return this.direct.listBlocs(); }
  highestNumericBlocId(): ReturnType<StoreReads["highestNumericBlocId"]> { return this.direct.highestNumericBlocId(); }
  accessFacts(blocId: string, userId: string): ReturnType<StoreReads["accessFacts"]> { return this.direct.accessFacts(blocId, userId); }
  blocAccessList(blocId: string): ReturnType<StoreReads["blocAccessList"]> { return this.direct.blocAccessList(blocId); }
  retiredFieldSlugs(blocId: string): ReturnType<StoreReads["retiredFieldSlugs"]> { return this.direct.retiredFieldSlugs(blocId); }
  findFile(ref: string): ReturnType<StoreReads["findFile"]> { return this.direct.findFile(ref); }
  countRecords(...a: Parameters<StoreReads["countRecords"]>): ReturnType<StoreReads["countRecords"]> { return this.direct.countRecords(...a); }
  listRecords(...a: Parameters<StoreReads["listRecords"]>): ReturnType<StoreReads["listRecords"]> { return this.direct.listRecords(...a); }
  findRecords(...a: Parameters<StoreReads["findRecords"]>): ReturnType<StoreReads["findRecords"]> { return this.direct.findRecords(...a); }
  listRows(...a: Parameters<StoreReads["listRows"]>): ReturnType<StoreReads["listRows"]> { return this.direct.listRows(...a); }
  tallyValues(...a: Parameters<StoreReads["tallyValues"]>): ReturnType<StoreReads["tallyValues"]> { return this.direct.tallyValues(...a); }
  scopes(...a: Parameters<StoreReads["scopes"]>): ReturnType<StoreReads["scopes"]> { return this.direct.scopes(...a); }
  periodCounts(...a: Parameters<StoreReads["periodCounts"]>): ReturnType<StoreReads["periodCounts"]> { return this.direct.periodCounts(...a); }
  repeatedValues(...a: Parameters<StoreReads["repeatedValues"]>): ReturnType<StoreReads["repeatedValues"]> { return this.direct.repeatedValues(...a); }
  countsOf(...a: Parameters<StoreReads["countsOf"]>): ReturnType<StoreReads["countsOf"]> { return this.direct.countsOf(...a); }
  countsOfPairs(...a: Parameters<StoreReads["countsOfPairs"]>): ReturnType<StoreReads["countsOfPairs"]> { return this.direct.countsOfPairs(...a); }
  valuesHeldTwice(...a: Parameters<StoreReads["valuesHeldTwice"]>): ReturnType<StoreReads["valuesHeldTwice"]> { return this.direct.valuesHeldTwice(...a); }
  holderCounts(...a: Parameters<StoreReads["holderCounts"]>): ReturnType<StoreReads["holderCounts"]> { return this.direct.holderCounts(...a); }
  blocsWithoutScope(...a: Parameters<StoreReads["blocsWithoutScope"]>): ReturnType<StoreReads["blocsWithoutScope"]> { return this.direct.blocsWithoutScope(...a); }
  holders(...a: Parameters<StoreReads["holders"]>): ReturnType<StoreReads["holders"]> { return this.direct.holders(...a); }
  lastSequence(...a: Parameters<StoreReads["lastSequence"]>): ReturnType<StoreReads["lastSequence"]> { return this.direct.lastSequence(...a); }
  valuesWithPrefix(...a: Parameters<StoreReads["valuesWithPrefix"]>): ReturnType<StoreReads["valuesWithPrefix"]> { return this.direct.valuesWithPrefix(...a); }
  recordHistory(...a: Parameters<StoreReads["recordHistory"]>): ReturnType<StoreReads["recordHistory"]> { return this.direct.recordHistory(...a); }

  createUser(name: string, role: UserRole, createdAt: string): Promise<User> { return this.transaction((tx) => tx.createUser(name, role, createdAt)); }
  setProfile(userId: string, profile: readonly string[]): Promise<void> { return this.transaction((tx) => tx.setProfile(userId, profile)); }
  updateAccount(userId: string, changes: AccountChanges): Promise<boolean> { return this.transaction((tx) => tx.updateAccount(userId, changes)); }
  createRole(name: string, createdAt: string): Promise<Role> { return this.transaction((tx) => tx.createRole(name, createdAt)); }
  setRoleMember(userId: string, roleId: string, member: boolean): Promise<void> { return this.transaction((tx) => tx.setRoleMember(userId, roleId, member)); }
  createToken(token: NewToken): Promise<void> { return this.transaction((tx) => tx.createToken(token)); }
  revokeToken(id: string, revokedAt: string): Promise<boolean> { return this.transaction((tx) => tx.revokeToken(id, revokedAt)); }
  createModule(name: string, createdAt: string): Promise<Module> { return this.transaction((tx) => tx.createModule(name, createdAt)); }
  createBloc(bloc: Bloc, createdAt: string): Promise<void> { return this.transaction((tx) => tx.createBloc(bloc, createdAt)); }
  addField(blocId: string, field: Field): Promise<void> { return this.transaction((tx) => tx.addField(blocId, field)); }
  updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void> { return this.transaction((tx) => tx.updateBlocSettings(blocId, settings)); }
  updateField(blocId: string, field: Field): Promise<boolean> { return this.transaction((tx) => tx.updateField(blocId, field)); }
  setGrant(blocId: string, userId: string, grant: Grant): Promise<void> { return this.transaction((tx) => tx.setGrant(blocId, userId, grant)); }
  removeGrant(blocId: string, userId: string): Promise<void> { return this.transaction((tx) => tx.removeGrant(blocId, userId)); }
  setRoleGrant(blocId: string, roleId: string, grant: Grant): Promise<void> { return this.transaction((tx) => tx.setRoleGrant(blocId, roleId, grant)); }
  removeRoleGrant(blocId: string, roleId: string): Promise<void> { return this.transaction((tx) => tx.removeRoleGrant(blocId, roleId)); }
  setRestriction(blocId: string, userId: string, mode: RestrictionMode): Promise<void> { return this.transaction((tx) => tx.setRestriction(blocId, userId, mode)); }
  removeRestriction(blocId: string, userId: string): Promise<void> { return this.transaction((tx) => tx.removeRestriction(blocId, userId)); }
  retireField(blocId: string, slug: string, retiredAt: string): Promise<boolean> { return this.transaction((tx) => tx.retireField(blocId, slug, retiredAt)); }
  deleteBloc(blocId: string): Promise<string[]> { return this.transaction((tx) => tx.deleteBloc(blocId)); }
  deleteRole(roleId: string): Promise<string[] | undefined> { return this.transaction((tx) => tx.deleteRole(roleId)); }
  deleteModule(moduleId: string): Promise<boolean> { return this.transaction((tx) => tx.deleteModule(moduleId)); }
}
