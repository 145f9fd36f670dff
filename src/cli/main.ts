#!/usr/bin/env node
import { parseArgs } from "node:util";
import { ConfigError, readConfig } from "../config.js";
import { ServiceError } from "../domain/errors.js";
import { openContext } from "../open-context.js";
import { runCommand, UsageError, USAGE } from "./commands.js";
import { CopyError, runCopy } from "./copy.js";
import { BackupError } from "./backup-file.js";
import { runBackupCommand } from "./backup.js";

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
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length === 0) {
    process.stdout.write(USAGE);
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
    error instanceof BackupError ||
    (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"));
  process.stderr.write(`bloc-data: ${known ? (error as Error).message : (error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
