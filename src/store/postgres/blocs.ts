import { ConflictError } from "../../domain/errors.js";
import type { Bloc, BlocSettings, Field, Module } from "../../domain/model.js";
import type { BlocStore } from "../../domain/ports/store.js";
import { BLOC_ROWS } from "../bloc-rows.js";
import { BLOC_COLUMNS, FIELD_COLUMNS, fieldParams, internalId, toBloc, type BlocRow, type FieldRow } from "../config-rows.js";
import type { PgConfigCache } from "./config-cache.js";
import { loadBloc, settingParams, settingsSql } from "./config-rows.js";
import { storable, type Db } from "./driver.js";
import { ensureFieldIndex } from "./field-indexes.js";

/**
 * Modules, blocs and their fields in the PostgreSQL engine, blocs read through the
 * generation cache. Each write calls `changing` before its first statement (the
 * transaction then reads config uncached, and other readers look at the generation
 * afresh). Inserts that may meet a taken key say ON CONFLICT DO NOTHING and report the
 * conflict themselves: a failed statement would abort the whole transaction in
 * PostgreSQL, where the caller may still want to go on.
 */
export class PgBlocs implements BlocStore {
  constructor(private readonly db: Db, private readonly config: PgConfigCache, private readonly changing: () => void) {}

  async findModule(id: string): Promise<Module | undefined> {
    const [row] = await this.db.run<{ id: number; name: string }>("SELECT id, name FROM modules WHERE id = $1::bigint", [internalId(id)]);
    return row && { id: String(row.id), name: row.name };
  }

  async listModules(): Promise<Module[]> {
    const rows = await this.db.run<{ id: number; name: string }>("SELECT id, name FROM modules ORDER BY id");
    return rows.map((row) => ({ id: String(row.id), name: row.name }));
  }

  findBloc(id: string): Promise<Bloc | undefined> {
    // Unknown IDs are not kept: probing IDs must not fill the cache.
    return this.config.cached(`bloc:${id}`, (db) => loadBloc(db, id), (bloc) => bloc !== undefined);
  }

  async listBlocs(): Promise<Bloc[]> {
    const blocs = await this.db.run<BlocRow>(`SELECT ${BLOC_COLUMNS} FROM blocs ORDER BY created_at, id`);
    const fields = await this.db.run<FieldRow>(`SELECT ${FIELD_COLUMNS} FROM fields WHERE retired_at IS NULL ORDER BY bloc_id, position`);
    const byBloc = new Map<string, FieldRow[]>();
    for (const field of fields) {
      const list = byBloc.get(field.bloc_id);
      if (list) list.push(field); else byBloc.set(field.bloc_id, [field]);
    }
    return blocs.map((bloc) => toBloc(bloc, byBloc.get(bloc.id) ?? []));
  }

  async highestNumericBlocId(): Promise<number> {
    // As SQLite's CAST(id AS INTEGER), a number past 64 bits stops at the largest 64-bit integer.
    const [row] = await this.db.run<{ n: number | null }>(`
      SELECT MAX(LEAST(id::numeric, 9223372036854775807))::bigint AS n FROM blocs WHERE id ~ '^[0-9]+$'`);
    return row?.n ?? 0;
  }

  async retiredFieldSlugs(blocId: string): Promise<string[]> {
    if (!storable(blocId)) return [];
    const rows = await this.db.run<{ slug: string }>(
      "SELECT slug FROM fields WHERE bloc_id = $1::text AND retired_at IS NOT NULL ORDER BY position", [blocId]);
    return rows.map((row) => row.slug);
  }

  async createModule(name: string, createdAt: string): Promise<Module> {
    this.changing();
    const [row] = await this.db.run<{ id: number; name: string }>(
      "INSERT INTO modules (name, created_at) VALUES ($1::text, $2::text) RETURNING id, name", [name, createdAt]);
    return { id: String(row!.id), name: row!.name };
  }

  async createBloc(bloc: Bloc, createdAt: string): Promise<void> {
    this.changing();
    const rows = await this.db.run(
      "INSERT INTO blocs (id, name, created_at) VALUES ($1::text, $2::text, $3::text) ON CONFLICT DO NOTHING RETURNING id",
      [bloc.id, bloc.name, createdAt]);
    if (rows.length === 0) throw new ConflictError("already exists");
    await this.updateBlocSettings(bloc.id, bloc);
    for (const field of bloc.fields) await this.insertField(bloc.id, field);
  }

  async addField(blocId: string, field: Field): Promise<void> {
    this.changing();
    await this.insertField(blocId, field);
  }

  private async insertField(blocId: string, field: Field): Promise<void> {
    const rows = await this.db.run(`
      INSERT INTO fields (${FIELD_COLUMNS}, position)
      VALUES ($1::text, $2::text, $3::text, $4::integer, $5::text, $6::text, $7::integer, $8::integer, $9::bigint,
        $10::text, $11::text, $12::integer,
        (SELECT COALESCE(MAX(position), 0) + 1 FROM fields WHERE bloc_id = $1::text))
      ON CONFLICT DO NOTHING RETURNING slug`,
    [blocId, field.slug, ...fieldParams(field)]);
    if (rows.length === 0) throw new ConflictError("already exists");
    await ensureFieldIndex(this.db, blocId, field);
  }

  async updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void> {
    this.changing();
    await this.db.run(`UPDATE blocs SET ${settingsSql(2)} WHERE id = $1::text`, [blocId, ...settingParams(settings)]);
  }

  async updateField(blocId: string, field: Field): Promise<boolean> {
    this.changing();
    const rows = await this.db.run(`
      UPDATE fields SET name = $3::text, apply_profile_filter = $4::integer, type = $5::text, options = $6::text,
        required = $7::integer, unique_values = $8::integer, max_length = $9::bigint, pattern = $10::text,
        format = $11::text, indexed = $12::integer
      WHERE bloc_id = $1::text AND slug = $2::text RETURNING slug`,
    [blocId, field.slug, ...fieldParams(field)]);
    if (rows.length === 0) return false;
    await ensureFieldIndex(this.db, blocId, field);
    return true;
  }

  async retireField(blocId: string, slug: string, retiredAt: string): Promise<boolean> {
    this.changing();
    const rows = await this.db.run(`UPDATE fields SET retired_at = $3::text
      WHERE bloc_id = $1::text AND slug = $2::text AND retired_at IS NULL RETURNING slug`, [blocId, slug, retiredAt]);
    if (rows.length === 0) return false;
    await this.db.run(`DELETE FROM value_counts WHERE slug = $2::text
      AND scope_id IN (SELECT id FROM counter_scopes WHERE bloc_id = $1::text)`, [blocId, slug]);
    return true;
  }

  async deleteBloc(blocId: string): Promise<string[]> {
    this.changing();
    const contents = await this.db.run<{ sha256: string }>(
      "SELECT DISTINCT sha256 FROM files WHERE bloc_id = $1::text ORDER BY sha256", [blocId]);
    for (const { table, where } of BLOC_ROWS) {
      await this.db.run(`DELETE FROM ${table} WHERE ${where.replaceAll(":bloc", "$1::text")}`, [blocId]);
    }
    return contents.map((row) => row.sha256);
  }

  async deleteModule(moduleId: string): Promise<boolean> {
    this.changing();
    const rows = await this.db.run("DELETE FROM modules WHERE id = $1::bigint RETURNING id", [internalId(moduleId)]);
    return rows.length > 0;
  }
}
