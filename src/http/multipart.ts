import type { FastifyRequest } from "fastify";
import type { Multipart } from "@fastify/multipart";
import "@fastify/multipart";
import { InvalidInputError, MalformedBodyError } from "../domain/errors.js";
import { isRefusal, PayloadTooLargeError, RequestTimeoutError } from "./http-errors.js";
import { visibleFileName } from "../domain/file-names.js";
import type { Context } from "../domain/context.js";
import type { Principal } from "../domain/access.js";
import { checkUpload, type UploadedFile } from "../domain/records.js";
import type { ReceivedContent } from "../domain/ports/blobs.js";
import { authenticateAgain } from "./auth.js";
import { tooLarge } from "./body.js";
import { present, requiredId, type Params } from "./params.js";

/** add-data's parameters: text parts, never file parts (a file part is named by a file field's slug). */
const TEXT_PARAMETERS: ReadonlySet<string> = new Set(["scanStationID", "jobID", "dataToAdd", "submittedStatus"]);

/** A MIME type as a client may name it; anything else is served as bytes. */
const MIME = /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*$/;

export interface UploadLimits {
  /** BLOC_MAX_BODY_BYTES, for the text parts together. */
  readonly maxBodyBytes: number;
  /** BLOC_UPLOAD_TIMEOUT_MS: the time the whole upload has to arrive. */
  readonly uploadTimeoutMs: number;
}

/** One deadline for a whole upload; every wait on the client is raced against it. */
class Deadline {
  private timer: NodeJS.Timeout | undefined;
  private readonly expired: Promise<never>;

  constructor(timeoutMs: number) {
    this.expired = new Promise<never>((_resolve, reject) => {
      this.timer = setTimeout(() => reject(new RequestTimeoutError(
        `The upload did not arrive within ${timeoutMs} ms (BLOC_UPLOAD_TIMEOUT_MS)`,
      )), timeoutMs);
    });
    this.expired.catch(() => undefined);
  }

  /** `work`, unless the deadline passes first. */
  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.expired]);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/**
 * The next part. The parser fails only on what the client sent (a truncated or malformed
 * body, a limit), so its failures are the client's: 400 unless they carry their own 4xx.
 */
async function nextPart(parts: AsyncIterator<Multipart>, deadline: Deadline): Promise<IteratorResult<Multipart>> {
  try {
    return await deadline.race(parts.next());
  } catch (error) {
    const status = (error as { statusCode?: unknown }).statusCode;
    if (isRefusal(error) || (typeof status === "number" && status >= 400 && status < 500)) throw error;
    throw malformed();
  }
}

function malformed(): MalformedBodyError {
  return new MalformedBodyError("The multipart/form-data body is malformed or incomplete");
}

/**
 * Reads a multipart add-data: text parts become parameters, each file part is streamed
 * to disk as it arrives and held (in the store) until its record is written. Before any
 * byte of a file is written, the token is checked again: it must be allowed to add to the bloc
 * `scanStationID` names, with the part naming one of its file fields; so scanStationID
 * must come before the file parts. The text parts together count against the body limit.
 * If anything fails, the holds are released and content no record or other upload uses
 * is removed, so a refused upload leaves nothing behind.
 */
export async function withMultipart<T>(
  ctx: Context, request: FastifyRequest, limits: UploadLimits,
  work: (principal: Principal, params: Params, files: UploadedFile[]) => Promise<T>,
): Promise<T> {
  const params: Record<string, unknown> = {};
  const files: UploadedFile[] = [];
  const deadline = new Deadline(limits.uploadTimeoutMs);
  let textBytes = 0;
  try {
    const parts = request.parts()[Symbol.asyncIterator]();
    for (;;) {
      const next = await nextPart(parts, deadline);
      if (next.done) break;
      const part: Multipart = next.value;
      if (part.type === "field") {
        if (typeof part.value !== "string") throw new InvalidInputError(`part ${part.fieldname} must be text`);
        textBytes += Buffer.byteLength(part.value);
        if (part.valueTruncated || textBytes > limits.maxBodyBytes) throw tooLarge(limits.maxBodyBytes);
        params[part.fieldname] = part.value;
        continue;
      }
      if (TEXT_PARAMETERS.has(part.fieldname)) {
        throw new InvalidInputError(`${part.fieldname} arrived as a file part (a part with a filename); send it as a text part, ` +
          `e.g. with curl -F '${part.fieldname}=<file.json' (not @file.json), or with FormData.append("${part.fieldname}", text)`);
      }
      if (!present(params.scanStationID)) {
        throw new InvalidInputError(`scanStationID must come before the file parts (file part ${part.fieldname} came first)`);
      }
      await checkUpload(ctx, await authenticateAgain(ctx, request), requiredId(params, "scanStationID"), part.fieldname);
      const receiving = ctx.blobs.receive(part.file);
      let content: ReceivedContent;
      try {
        content = await deadline.race(receiving);
      } catch (error) {
        // Past the deadline: stopping the part's stream makes receive remove its temporary file.
        part.file.destroy();
        await receiving.then((late) => ctx.blobs.discard(late), () => undefined);
        // A part the client cut off fails the part's own stream: the client's error, not the disk's.
        if (part.file.errored && !isRefusal(error)) throw malformed();
        throw error;
      }
      if (part.file.truncated) {
        await ctx.blobs.discard(content);
        throw new PayloadTooLargeError(`file ${part.fieldname} is larger than the limit (BLOC_MAX_FILE_BYTES)`);
      }
      const hold = await ctx.store.files.holdContent(content.sha256, ctx.now());
      files.push({
        slug: part.fieldname, sha256: content.sha256, size: content.size, hold,
        name: visibleFileName(part.filename || part.fieldname),
        type: MIME.test(part.mimetype) ? part.mimetype : "application/octet-stream",
      });
      await ctx.blobs.place(content);
    }
    deadline.clear();
    // The body is in: whoever the token stands for now is who adds the record.
    return await work(await authenticateAgain(ctx, request), params, files);
  } catch (error) {
    deadline.clear();
    for (const file of files) {
      await ctx.store.files.releaseContent(file.hold, file.sha256, () => ctx.blobs.removeNow(file.sha256));
    }
    throw error;
  }
}
