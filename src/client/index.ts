/**
 * The typed client of a Bloc Data Service: `import { BlocClient } from "bloc-data-service/client"`.
 * It imports nothing of the server, so it works against any service that follows the spec.
 */
export { BlocClient, type BlocClientOptions, type ReportDownload } from "./client.js";
export { BlocAdmin } from "./admin.js";
export { BlocApiError } from "./errors.js";
export { guardCsvCell, unguardCsvCell } from "./csv.js";
export type { UploadFile } from "./multipart.js";
export type { EventType, StreamEvent, StreamOptions, Webhook, WebhookDelivery, WebhookInput } from "./events.js";
export type * from "./types.js";
