#!/usr/bin/env node
import { parseArgs } from "node:util";
import { ConfigError, readConfig } from "../config.js";
import { ServiceError } from "../domain/errors.js";
import { openContext } from "../open-context.js";
import { BlocApiError } from "../client/index.js";
import { runCommand, UsageError, USAGE as STORE_USAGE } from "./commands.js";
import { DATA_USAGE, DATA_VERBS, runDataCommand } from "./data-commands.js";
import { CopyError, runCopy } from "./copy.js";
import { BackupError } from "./backup-file.js";
import { runBackupCommand } from "./backup.js";

const USAGE = STORE_USAGE + DATA_USAGE;

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: "string" },
      name: { type: "string" },
      expires: { type: "string" },
      field: { type: "string", multiple: true },
      id: { type: "string" },
      slug: { type: "string" },
      permissions: { type: "string" },
      blocs: { type: "string" },
      "open-to-all": { type: "string" },
      "accepting-data": { type: "string" },
      restriction: { type: "string" },
      "profile-filter": { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      batch: { type: "string" },
      "skip-files": { type: "boolean" },
      "new-admin": { type: "boolean" },
      "with-records": { type: "boolean" },
      events: { type: "string" },
      secret: { type: "string" },
      limit: { type: "string" },
      help: { type: "boolean", short: "h" },
      // Data commands (data-commands.ts).
      url: { type: "string" },
      token: { type: "string" },
      csv: { type: "boolean" },
      xlsx: { type: "boolean" },
      out: { type: "string", short: "o" },
      "from-date": { type: "string" },
      "to-date": { type: "string" },
      "newest-first": { type: "boolean" },
      "page-size": { type: "string" },
      fields: { type: "string" },
      filter: { type: "string", multiple: true },
      data: { type: "string" },
      job: { type: "string" },
      file: { type: "string", multiple: true },
      concurrency: { type: "string" },
      rejects: { type: "string" },
      "skip-unknown": { type: "boolean" },
      unguard: { type: "boolean" },
      where: { type: "string", multiple: true },
      set: { type: "string", multiple: true },
      email: { type: "string" },
    },
  });
  if (values.help || positionals.length === 0) {
    process.stdout.write(USAGE);
    return;
  }
  if (DATA_VERBS.has(positionals[0]!)) {
    // Talks HTTP to a running service; never opens the store.
    process.exitCode = await runDataCommand(positionals, values);
    return;
  }
  if (positionals[0] === "copy") {
    // Works on the two URLs it is given, not on DATABASE_URL.
    if (positionals.length > 1) throw new UsageError(`unknown command "${positionals.join(" ")}"`);
    process.stdout.write(`${JSON.stringify(await runCopy(values), null, 2)}\n`);
    return;
  }
  if (positionals[0] === "backup" || positionals[0] === "restore") {
    // Opens the store alone (no admin token): a restore needs it empty.
    process.stdout.write(`${JSON.stringify(await runBackupCommand(positionals, values), null, 2)}\n`);
    return;
  }
  const ctx = await openContext(readConfig());
  try {
    const result = await runCommand(ctx, positionals, values);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await ctx.store.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`bloc-data: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  const known = error instanceof ConfigError || error instanceof ServiceError || error instanceof CopyError ||
    error instanceof BackupError || error instanceof BlocApiError ||
    // System errors (a service that cannot be reached, a file that cannot be read) say enough in their message.
    (error instanceof Error && "code" in error && /^E[A-Z]+$/.test(String(error.code))) ||
    (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"));
  process.stderr.write(`bloc-data: ${known ? (error as Error).message : (error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
