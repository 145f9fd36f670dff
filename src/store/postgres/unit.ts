import type { SequenceTemplate } from "../../domain/autogenerate.js";
import type { CounterDeltas } from "../../domain/counting/deltas.js";
import type { Scope, ScopeCountChange, ValueCountChange } from "../../domain/ports/counters.js";
import type {
  Bloc, BlocSettings, Field, Grant, Module, RecordFilter, RestrictionMode, Role, StoredRecord, User, UserRole,
} from "../../domain/model.js";
import type { GenerationCache } from "../generation-cache.js";
import type { AccountChanges, HistoryEntry, IdempotencyEntry, NewEvent, NewFile, NewRecord, NewToken, Tx, Webhook } from "../../domain/ports/store.js";
import { PgConfigWrites } from "./config-writes.js";
import * as counters from "./counters.js";
import * as events from "./events.js";
import * as deleted from "./deleted-records.js";
import * as history from "./history.js";
import * as idempotency from "./idempotency.js";
import { PgReads, type CachedConfig } from "./reads.js";
import * as writes from "./record-writes.js";
import type { Session } from "./session.js";

/** A unit of work's view of an open transaction: every read and write, on its connection. */
export class PgUnit extends PgReads implements Tx {
  private readonly configWrites: PgConfigWrites;
  private readonly cache: GenerationCache;

  constructor(
    private readonly session: Session,
    shared: Omit<CachedConfig, "bypass">,
    readonly counters: CounterDeltas,
    readonly pending: CounterDeltas,
  ) {
    super(session.db, { ...shared, bypass: () => session.wroteConfig });
    this.cache = shared.cache;
    this.configWrites = new PgConfigWrites(session.db);
  }

  /** Before each config write: later reads in this transaction see it, and other readers look afresh. */
  private configChange(): PgConfigWrites {
    this.session.wroteConfig = true;
    this.cache.changed();
    return this.configWrites;
  }

  lockBloc(blocId: string): Promise<void> {
    return this.session.lockBloc(blocId);
  }

  insertRecord(record: NewRecord): Promise<number> {
    return writes.insertRecord(this.db, record);
  }

  insertFile(file: NewFile, blocId: string, recordId: number, createdAt: string): Promise<void> {
    return writes.insertFile(this.db, file, blocId, recordId, createdAt);
  }

  updateValues(filter: RecordFilter, fields: Readonly<Record<string, string>>, status: number | undefined): Promise<number[]> {
    return writes.updateValues(this.db, filter, fields, status);
  }

  insertHistory(blocId: string, entries: readonly HistoryEntry[]): Promise<void> {
    return history.insertHistory(this.db, blocId, entries);
  }

  moveToDeleted(blocId: string, ids: readonly number[], deletedAt: string, deletedBy: string): Promise<number> {
    return deleted.moveToDeleted(this.db, blocId, ids, deletedAt, deletedBy);
  }

  findDeletedRecord(blocId: string, id: number): Promise<StoredRecord | undefined> {
    return deleted.findDeletedRecord(this.db, blocId, id);
  }

  moveFromDeleted(blocId: string, id: number): Promise<boolean> {
    return deleted.moveFromDeleted(this.db, blocId, id);
  }

  claimIdempotencyKey(userId: string, keyHash: string): Promise<boolean> {
    return idempotency.claimIdempotencyKey(this.db, userId, keyHash);
  }

  findIdempotencyKey(userId: string, keyHash: string, notBefore: number): Promise<IdempotencyEntry | undefined> {
    return idempotency.findIdempotencyKey(this.db, userId, keyHash, notBefore);
  }

  saveIdempotencyKey(entry: IdempotencyEntry): Promise<void> {
    return idempotency.saveIdempotencyKey(this.db, entry);
  }

  saveSequence(blocId: string, slug: string, template: SequenceTemplate, last: number): Promise<void> {
    return writes.saveSequence(this.db, blocId, slug, template, last);
  }

  changeScopes(blocId: string, changes: readonly ScopeCountChange[]): Promise<Scope[]> {
    return counters.changeScopes(this.db, blocId, changes);
  }

  markCounted(scopes: readonly number[]): Promise<void> {
    return counters.markCounted(this.db, scopes);
  }

  changeValues(changes: readonly ValueCountChange[]): Promise<void> {
    return counters.changeValues(this.db, changes);
  }

  removeValue(scopes: readonly number[], slug: string, value: string): Promise<void> {
    return counters.removeValue(this.db, scopes, slug, value);
  }

  clearCounters(blocId: string): Promise<void> {
    return counters.clearCounters(this.db, blocId);
  }

  async appendEvents(blocId: string, list: readonly NewEvent[]): Promise<void> {
    events.appendEvents(this.db, blocId, list);
  }

  createWebhook(webhook: Webhook): Promise<void> {
    return events.createWebhook(this.db, webhook);
  }

  createUser(name: string, role: UserRole, createdAt: string): Promise<User> { return this.configChange().createUser(name, role, createdAt); }
  setProfile(userId: string, profile: readonly string[]): Promise<void> { return this.configChange().setProfile(userId, profile); }
  updateAccount(userId: string, changes: AccountChanges): Promise<boolean> { return this.configChange().updateAccount(userId, changes); }
  createRole(name: string, createdAt: string): Promise<Role> { return this.configChange().createRole(name, createdAt); }
  setRoleMember(userId: string, roleId: string, member: boolean): Promise<void> { return this.configChange().setRoleMember(userId, roleId, member); }
  createToken(token: NewToken): Promise<void> { return this.configChange().createToken(token); }
  revokeToken(id: string, revokedAt: string): Promise<boolean> { return this.configChange().revokeToken(id, revokedAt); }
  createModule(name: string, createdAt: string): Promise<Module> { return this.configChange().createModule(name, createdAt); }
  createBloc(bloc: Bloc, createdAt: string): Promise<void> { return this.configChange().createBloc(bloc, createdAt); }
  addField(blocId: string, field: Field): Promise<void> { return this.configChange().addField(blocId, field); }
  updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void> { return this.configChange().updateBlocSettings(blocId, settings); }
  updateField(blocId: string, field: Field): Promise<boolean> { return this.configChange().updateField(blocId, field); }
  setGrant(blocId: string, userId: string, grant: Grant): Promise<void> { return this.configChange().setGrant(blocId, userId, grant); }
  removeGrant(blocId: string, userId: string): Promise<void> { return this.configChange().removeGrant(blocId, userId); }
  setRoleGrant(blocId: string, roleId: string, grant: Grant): Promise<void> { return this.configChange().setRoleGrant(blocId, roleId, grant); }
  removeRoleGrant(blocId: string, roleId: string): Promise<void> { return this.configChange().removeRoleGrant(blocId, roleId); }
  setRestriction(blocId: string, userId: string, mode: RestrictionMode): Promise<void> { return this.configChange().setRestriction(blocId, userId, mode); }
  removeRestriction(blocId: string, userId: string): Promise<void> { return this.configChange().removeRestriction(blocId, userId); }
  retireField(blocId: string, slug: string, retiredAt: string): Promise<boolean> { return this.configChange().retireField(blocId, slug, retiredAt); }
  deleteBloc(blocId: string): Promise<string[]> { return this.configChange().deleteBloc(blocId); }
  deleteRole(roleId: string): Promise<string[] | undefined> { return this.configChange().deleteRole(roleId); }
  deleteModule(moduleId: string): Promise<boolean> { return this.configChange().deleteModule(moduleId); }
}
