import type { Bloc, BlocSettings, Field, Module } from "../model.js";

/* Blocs, their fields and settings, and the modules they belong to. */

export interface BlocReads {
  findModule(id: string): Promise<Module | undefined>;
  listModules(): Promise<Module[]>;
  findBloc(id: string): Promise<Bloc | undefined>;
  listBlocs(): Promise<Bloc[]>;
  /** The largest bloc ID made only of digits, or 0. */
  highestNumericBlocId(): Promise<number>;
  /** Slugs of the bloc's retired fields: findBloc leaves them out, and no new field may take them. */
  retiredFieldSlugs(blocId: string): Promise<string[]>;
}

/** Each atomic on its own: outside a unit of work, each is a transaction of its own. */
export interface BlocWrites {
  createModule(name: string, createdAt: string): Promise<Module>;
  /** The bloc, its settings and its fields. A taken ID throws ConflictError. */
  createBloc(bloc: Bloc, createdAt: string): Promise<void>;
  addField(blocId: string, field: Field): Promise<void>;
  updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void>;
  /** Replaces a field's definition (its slug stays). False when the bloc has no such field. */
  updateField(blocId: string, field: Field): Promise<boolean>;
  /**
   * Retires a field: findBloc no longer lists it, its row (and so its slug) stays, and
   * its value counters go (nothing reads them any more). False when no such field is in use.
   */
  retireField(blocId: string, slug: string, retiredAt: string): Promise<boolean>;
  /**
   * Deletes a bloc and every row that belongs to it (records, files' rows, history,
   * counters, sequences, access, events, webhook lanes and deliveries, idempotency
   * entries of its records); returns the SHA-256 of each content its files used.
   */
  deleteBloc(blocId: string): Promise<string[]>;
  /** Deletes a module no bloc belongs to; false when no such module exists. */
  deleteModule(moduleId: string): Promise<boolean>;
}

export interface BlocStore extends BlocReads, BlocWrites {}
