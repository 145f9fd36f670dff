import type { Bloc, BlocSettings, Field, Module } from "../../domain/model.js";
import { BLOC_COLUMNS, FIELD_COLUMNS, fieldParams, internalId, toBloc, type BlocRow, type FieldRow } from "../config-rows.js";
import type { BlocStore } from "../../domain/ports/store.js";
import { BLOC_ROWS } from "../bloc-rows.js";
import type { GenerationCache } from "../generation-cache.js";
import type { Statements } from "./statements.js";
import { ensureValueIndex } from "./value-indexes.js";

/** Bloc settings as columns, for the keys present. */
const SETTING_COLUMNS: { readonly [K in keyof BlocSettings]-?: [string, (v: NonNullable<BlocSettings[K]> | null) => string | number | null] } = {
  openToAllUsers: ["open_to_all", (v) => Number(v)],
  acceptingData: ["accepting_data", (v) => Number(v)],
  restriction: ["restriction", (v) => v],
  moduleId: ["module_id", (v) => (v === null ? null : internalId(v))],
  requireJob: ["require_job", (v) => Number(v)],
  scanLimit: ["scan_limit", (v) => v],
  scanLimitPeriod: ["scan_limit_period", (v) => v],
};

/** Modules, blocs and their fields in the SQLite engine, blocs read through the generation cache. */
export class SqliteBlocs implements BlocStore {
  constructor(private readonly sql: Statements, private readonly cache: GenerationCache) {}

  async createModule(name: string, createdAt: string): Promise<Module> {
    this.cache.changed();
    const row = this.sql.get("INSERT INTO modules (name, created_at) VALUES (?, ?) RETURNING id, name")
      .get(name, createdAt) as { id: number; name: string };
    return { id: String(row.id), name: row.name };
  }

  async findModule(id: string): Promise<Module | undefined> {
    const row = this.sql.get("SELECT id, name FROM modules WHERE id = ?").get(internalId(id)) as { id: number; name: string } | undefined;
    return row && { id: String(row.id), name: row.name };
  }

  async listModules(): Promise<Module[]> {
    const rows = this.sql.get("SELECT id, name FROM modules ORDER BY id").all() as { id: number; name: string }[];
    return rows.map((row) => ({ id: String(row.id), name: row.name }));
  }

  /** Every field gets its slug's value index (value-indexes.ts), whether or not it is marked `indexed`. */
  private indexLookups(field: Field): void {
    ensureValueIndex(this.sql.db, field.slug);
  }

  private insertField(blocId: string, field: Field): void {
    this.sql.get(`INSERT INTO fields (bloc_id, slug, name, apply_profile_filter, type, options, required, unique_values,
        max_length, pattern, format, indexed, position)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM fields WHERE bloc_id = ?))`)
      .run(blocId, field.slug, ...fieldParams(field), blocId);
    this.indexLookups(field);
  }

  async createBloc(bloc: Bloc, createdAt: string): Promise<void> {
    this.cache.changed();
    this.sql.get(`INSERT INTO blocs (id, name, created_at) VALUES (?, ?, ?)`).run(bloc.id, bloc.name, createdAt);
    this.applySettings(bloc.id, bloc);
    for (const field of bloc.fields) this.insertField(bloc.id, field);
  }

  async findBloc(id: string): Promise<Bloc | undefined> {
    // Unknown IDs are not kept: probing IDs must not fill the cache.
    return this.cache.get(`bloc:${id}`, async () => this.loadBloc(id), (bloc) => bloc !== undefined);
  }

  private loadBloc(id: string): Bloc | undefined {
    const row = this.sql.get(`SELECT ${BLOC_COLUMNS} FROM blocs WHERE id = ?`).get(id) as BlocRow | undefined;
    if (!row) return undefined;
    const fields = this.sql.get(`SELECT ${FIELD_COLUMNS} FROM fields WHERE bloc_id = ? AND retired_at IS NULL ORDER BY position`).all(id) as FieldRow[];
    return toBloc(row, fields);
  }

  async listBlocs(): Promise<Bloc[]> {
    const blocs = this.sql.get(`SELECT ${BLOC_COLUMNS} FROM blocs ORDER BY created_at, id`).all() as BlocRow[];
    const fields = this.sql.get(`SELECT ${FIELD_COLUMNS} FROM fields WHERE retired_at IS NULL ORDER BY bloc_id, position`).all() as FieldRow[];
    const byBloc = new Map<string, FieldRow[]>();
    for (const field of fields) byBloc.set(field.bloc_id, [...(byBloc.get(field.bloc_id) ?? []), field]);
    return blocs.map((bloc) => toBloc(bloc, byBloc.get(bloc.id) ?? []));
  }

  async addField(blocId: string, field: Field): Promise<void> {
    this.cache.changed();
    this.insertField(blocId, field);
  }

  private applySettings(blocId: string, settings: Partial<BlocSettings>): void {
    const sets: string[] = [];
    const params: (string | number | null)[] = [];
    for (const [key, [column, toColumn]] of Object.entries(SETTING_COLUMNS) as [keyof BlocSettings, [string, (v: unknown) => string | number | null]][]) {
      if (settings[key] === undefined) continue;
      sets.push(`${column} = ?`);
      params.push(toColumn(settings[key]));
    }
    if (sets.length > 0) this.sql.get(`UPDATE blocs SET ${sets.join(", ")} WHERE id = ?`).run(...params, blocId);
  }

  async updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void> {
    this.cache.changed();
    this.applySettings(blocId, settings);
  }

  async updateField(blocId: string, field: Field): Promise<boolean> {
    this.cache.changed();
    const result = this.sql.get(`UPDATE fields SET name = ?, apply_profile_filter = ?, type = ?, options = ?, required = ?,
        unique_values = ?, max_length = ?, pattern = ?, format = ?, indexed = ?
      WHERE bloc_id = ? AND slug = ?`).run(...fieldParams(field), blocId, field.slug);
    if (result.changes > 0) this.indexLookups(field);
    return result.changes > 0;
  }

  async highestNumericBlocId(): Promise<number> {
    const row = this.sql.get(
      "SELECT MAX(CAST(id AS INTEGER)) AS n FROM blocs WHERE id NOT GLOB '*[^0-9]*' AND id <> ''",
    ).get() as { n: number | null };
    return row.n ?? 0;
  }

  async retireField(blocId: string, slug: string, retiredAt: string): Promise<boolean> {
    this.cache.changed();
    const retired = this.sql.get("UPDATE fields SET retired_at = ? WHERE bloc_id = ? AND slug = ? AND retired_at IS NULL")
      .run(retiredAt, blocId, slug).changes > 0;
    if (retired) {
      this.sql.get("DELETE FROM value_counts WHERE slug = ? AND scope_id IN (SELECT id FROM counter_scopes WHERE bloc_id = ?)")
        .run(slug, blocId);
    }
    return retired;
  }

  async retiredFieldSlugs(blocId: string): Promise<string[]> {
    return this.sql.get("SELECT slug FROM fields WHERE bloc_id = ? AND retired_at IS NOT NULL ORDER BY position")
      .all(blocId).map((row) => (row as { slug: string }).slug);
  }

  async deleteBloc(blocId: string): Promise<string[]> {
    this.cache.changed();
    const contents = this.sql.get("SELECT DISTINCT sha256 FROM files WHERE bloc_id = ? ORDER BY sha256")
      .all(blocId).map((row) => (row as { sha256: string }).sha256);
    for (const { table, where } of BLOC_ROWS) {
      this.sql.get(`DELETE FROM ${table} WHERE ${where.replaceAll(":bloc", "@bloc")}`).run({ bloc: blocId });
    }
    return contents;
  }

  async deleteModule(moduleId: string): Promise<boolean> {
    this.cache.changed();
    return this.sql.get("DELETE FROM modules WHERE id = ?").run(internalId(moduleId)).changes > 0;
  }
}
