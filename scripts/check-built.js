// Run by `npm start` first (prestart). Before `npm ci` there is no dist/, and Node's
// "Cannot find module" stack says nothing of what to do. Plain JavaScript: nothing is
// compiled yet when it runs.
import fs from "node:fs";

if (!fs.existsSync(new URL("../dist/src/main.js", import.meta.url))) {
  process.stderr.write("bloc-data-service: the service is not built (dist/src/main.js is missing): run npm ci first\n");
  process.exit(1);
}
