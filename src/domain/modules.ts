import { InvalidInputError } from "./errors.js";
import type { Bloc, Module } from "./model.js";
import type { Context } from "./context.js";

export async function createModule(ctx: Context, name: string): Promise<Module> {
  const trimmed = name.trim();
  if (trimmed === "") throw new InvalidInputError("name must not be empty");
  return ctx.store.blocs.createModule(trimmed, ctx.now());
}

/** add-data's jobID: required where the bloc says so, and its module's ID where it has one. */
export function checkJob(bloc: Bloc, jobId: string | null): void {
  if (jobId === null) {
    if (bloc.requireJob) throw new InvalidInputError("jobID is required for this bloc");
    return;
  }
  if (bloc.moduleId !== null && jobId !== bloc.moduleId) {
    throw new InvalidInputError(`jobID "${jobId}" is not the module of this bloc`);
  }
}
