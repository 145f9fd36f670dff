import type { Transport } from "./transport.js";
import type { Webhook, WebhookDelivery, WebhookInput } from "./events.js";
import type {
  Bloc, BlocAccess, BlocId, BlocInput, BlocSettings, Field, FieldInput, FieldRules, Grant, HistoryItem, IssuedToken, Module,
  RestrictionMode, Role, TokenInfo, TokenInput, User, UserRole, AccountInput, UserUpdate,
} from "./types.js";

const seg = (id: BlocId): string => encodeURIComponent(String(id));

/** This service's admin API (/api/admin/…), for a token of an admin user. */
export class BlocAdmin {
  constructor(private readonly transport: Transport) {}

  private get<T>(path: string): Promise<T> {
    return this.transport.json<T>({ method: "GET", path: `/api/admin${path}` });
  }

  private write<T>(method: string, path: string, json: unknown): Promise<T> {
    return this.transport.json<T>({ method, path: `/api/admin${path}`, json });
  }

  private async remove(path: string): Promise<void> {
    await this.transport.json<undefined>({ method: "DELETE", path: `/api/admin${path}` }, [204]);
  }

  // Users, tokens, roles

  /** A new user; with `account`, an email and a password to sign in with. */
  createUser(name: string, role?: UserRole, account: AccountInput = {}): Promise<User> {
    return this.write("POST", "/users", { name, ...(role === undefined ? {} : { role }), ...account });
  }

  /** Changes a user's name or email, or disables (every token refused at once) or enables them. */
  updateUser(userId: string, update: UserUpdate): Promise<User> {
    return this.write("PATCH", `/users/${seg(userId)}`, update);
  }

  /** Sets (or replaces) a user's password: at least 10 characters. */
  async setPassword(userId: string, password: string): Promise<void> {
    await this.transport.json<undefined>({ method: "PUT", path: `/api/admin/users/${seg(userId)}/password`, json: { password } }, [204]);
  }

  async listUsers(): Promise<User[]> {
    return (await this.get<{ users: User[] }>("/users")).users;
  }

  getUser(userId: string): Promise<User & { roles: Role[] }> {
    return this.get(`/users/${seg(userId)}`);
  }

  /** Sets a user's profile values (an empty list clears them). */
  setProfile(userId: string, profile: readonly string[]): Promise<User> {
    return this.write("PUT", `/users/${seg(userId)}`, { profile });
  }

  /** Issues a token; its secret (`token`) is shown here only. */
  createToken(userId: string, input: TokenInput = {}): Promise<IssuedToken> {
    return this.write("POST", `/users/${seg(userId)}/tokens`, input);
  }

  async listTokens(userId: string): Promise<TokenInfo[]> {
    return (await this.get<{ tokens: TokenInfo[] }>(`/users/${seg(userId)}/tokens`)).tokens;
  }

  revokeToken(tokenId: string): Promise<void> {
    return this.remove(`/tokens/${seg(tokenId)}`);
  }

  createRole(name: string): Promise<Role> {
    return this.write("POST", "/roles", { name });
  }

  async listRoles(): Promise<Role[]> {
    return (await this.get<{ roles: Role[] }>("/roles")).roles;
  }

  addRoleMember(userId: string, roleId: string): Promise<{ userId: string; roleId: string }> {
    return this.write("PUT", `/users/${seg(userId)}/roles/${seg(roleId)}`, undefined);
  }

  removeRoleMember(userId: string, roleId: string): Promise<void> {
    return this.remove(`/users/${seg(userId)}/roles/${seg(roleId)}`);
  }

  /** Deletes a role with its memberships and grants: its members lose what it gave them at once. */
  deleteRole(roleId: string): Promise<void> {
    return this.remove(`/roles/${seg(roleId)}`);
  }

  // Modules, blocs, fields

  createModule(name: string): Promise<Module> {
    return this.write("POST", "/modules", { name });
  }

  async listModules(): Promise<Module[]> {
    return (await this.get<{ modules: Module[] }>("/modules")).modules;
  }

  createBloc(input: BlocInput): Promise<Bloc> {
    return this.write("POST", "/blocs", input);
  }

  async listBlocs(): Promise<Bloc[]> {
    return (await this.get<{ blocs: Bloc[] }>("/blocs")).blocs;
  }

  getBloc(blocId: BlocId): Promise<Bloc> {
    return this.get(`/blocs/${seg(blocId)}`);
  }

  updateBloc(blocId: BlocId, settings: BlocSettings): Promise<Bloc> {
    return this.write("PATCH", `/blocs/${seg(blocId)}`, settings);
  }

  addField(blocId: BlocId, field: FieldInput): Promise<Field> {
    return this.write("POST", `/blocs/${seg(blocId)}/fields`, field);
  }

  updateField(blocId: BlocId, slug: string, changes: FieldRules & { name?: string; applyProfileFilter?: boolean }): Promise<Field> {
    return this.write("PATCH", `/blocs/${seg(blocId)}/fields/${seg(slug)}`, changes);
  }

  /** Retires a field: no longer accepted or shown; records keep its values and its slug is never given again. */
  retireField(blocId: BlocId, slug: string): Promise<void> {
    return this.remove(`/blocs/${seg(blocId)}/fields/${seg(slug)}`);
  }

  /** Deletes a bloc; one that holds records is refused (409) unless `withRecords` deletes them with it. */
  deleteBloc(blocId: BlocId, options: { withRecords?: boolean } = {}): Promise<void> {
    return this.remove(`/blocs/${seg(blocId)}${options.withRecords ? "?withRecords=true" : ""}`);
  }

  /** Deletes a module; refused (409) while a bloc belongs to it. */
  deleteModule(moduleId: string): Promise<void> {
    return this.remove(`/modules/${seg(moduleId)}`);
  }

  // Access

  /** Every grant, role grant and restriction on a bloc, with the holders' names. */
  getAccess(blocId: BlocId): Promise<BlocAccess> {
    return this.get(`/blocs/${seg(blocId)}/access`);
  }

  setAccess(blocId: BlocId, userId: string, grant: Grant): Promise<Required<Grant> & { blocId: string; userId: string }> {
    return this.write("PUT", `/blocs/${seg(blocId)}/access/${seg(userId)}`, grant);
  }

  removeAccess(blocId: BlocId, userId: string): Promise<void> {
    return this.remove(`/blocs/${seg(blocId)}/access/${seg(userId)}`);
  }

  setRoleAccess(blocId: BlocId, roleId: string, grant: Grant): Promise<Required<Grant> & { blocId: string; roleId: string }> {
    return this.write("PUT", `/blocs/${seg(blocId)}/access/roles/${seg(roleId)}`, grant);
  }

  removeRoleAccess(blocId: BlocId, roleId: string): Promise<void> {
    return this.remove(`/blocs/${seg(blocId)}/access/roles/${seg(roleId)}`);
  }

  setRestriction(blocId: BlocId, userId: string, mode: RestrictionMode): Promise<{ blocId: string; userId: string; mode: RestrictionMode }> {
    return this.write("PUT", `/blocs/${seg(blocId)}/restrictions/${seg(userId)}`, { mode });
  }

  /** The user goes back to the bloc's default restriction. */
  removeRestriction(blocId: BlocId, userId: string): Promise<void> {
    return this.remove(`/blocs/${seg(blocId)}/restrictions/${seg(userId)}`);
  }

  // Webhooks

  /** A webhook; its signing secret (`secret`) is shown here only. */
  createWebhook(input: WebhookInput): Promise<Webhook & { secret: string }> {
    return this.write("POST", "/webhooks", input);
  }

  async listWebhooks(): Promise<Webhook[]> {
    return (await this.get<{ webhooks: Webhook[] }>("/webhooks")).webhooks;
  }

  removeWebhook(webhookId: string): Promise<void> {
    return this.remove(`/webhooks/${seg(webhookId)}`);
  }

  /** A webhook's delivery attempts, newest first; `before` (a delivery ID) reads the next page. */
  async webhookDeliveries(webhookId: string, options: { limit?: number; before?: number } = {}): Promise<WebhookDelivery[]> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set("limit", String(options.limit));
    if (options.before !== undefined) query.set("before", String(options.before));
    const suffix = query.size > 0 ? `?${query}` : "";
    return (await this.get<{ deliveries: WebhookDelivery[] }>(`/webhooks/${seg(webhookId)}/deliveries${suffix}`)).deliveries;
  }

  /** Sends a logged delivery's event again, now; the new attempt is returned (and logged). */
  async resendDelivery(webhookId: string, deliveryId: number): Promise<WebhookDelivery> {
    return (await this.write<{ delivery: WebhookDelivery }>("POST", `/webhooks/${seg(webhookId)}/deliveries/${deliveryId}/resend`, undefined)).delivery;
  }

  // History

  async recordHistory(blocId: BlocId, recordId: number | string): Promise<HistoryItem[]> {
    return (await this.get<{ history: HistoryItem[] }>(`/blocs/${seg(blocId)}/records/${seg(recordId)}/history`)).history;
  }

  /** Brings back a deleted record with its ID; NotFound when the bloc holds no such deleted record, Conflict when a unique value it held is taken. */
  async restoreRecord(blocId: BlocId, recordId: number | string): Promise<{ blocId: string; recordId: number }> {
    return this.write("POST", `/blocs/${seg(blocId)}/records/${seg(recordId)}/restore`, undefined);
  }
}
