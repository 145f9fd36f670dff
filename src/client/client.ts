import { createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { BlocAdmin } from "./admin.js";
import { streamEvents, type StreamEvent, type StreamOptions } from "./events.js";
import { multipartBody, type UploadFile } from "./multipart.js";
import { addDataFields, CONTENT_TYPES, dispositionName, deleteRequest, getDataResult, reportBody, safeName, timelinePath, updateRequest } from "./requests.js";
import { NodeTransport } from "./transport.js";
import type {
  AddDataInput, AddDataResult, BlocFields, BlocId, DataRecord, GetDataQuery, GetDataResult, ReportFormat, ReportQuery, ReportRow,
  DeleteInput, SignedIn, TimelineQuery, TimelineResult, UpdateInput,
} from "./types.js";

export interface BlocClientOptions {
  /** The service's base URL, e.g. http://localhost:8080. */
  readonly url: string;
  /** A bearer token. */
  readonly token: string;
  /**
   * How get-data and get-data-report are sent. "GET" (the spec's form) sends a JSON body
   * with GET through node:http; "POST" sends the same body with POST, the alternative this
   * service documents for runtimes and proxies that refuse or drop a GET body. The default
   * is GET on Node and POST on Bun and Deno, whose node:http is built on fetch.
   */
  readonly readMethod?: "GET" | "POST";
  /** Give up on a request with no activity for this long (0: never; default 0). */
  readonly timeoutMs?: number;
}

export interface ReportDownload {
  /** The body, streamed: read it or destroy it. */
  readonly stream: Readable;
  readonly contentType: string;
  /** The file name from Content-Disposition, or one made up when the service sends none (the spec allows that). */
  readonly filename: string;
}

function defaultReadMethod(): "GET" | "POST" {
  const versions = (globalThis as { process?: { versions?: Record<string, string | undefined> } }).process?.versions ?? {};
  return versions.bun !== undefined || versions.deno !== undefined ? "POST" : "GET";
}

/**
 * A typed client for a Bloc Data Service. The four record endpoints use only the spec's
 * parameters, so it works against any service that follows the spec; `admin` is this
 * service's admin API. Every refusal becomes a BlocApiError.
 */
export class BlocClient {
  readonly admin: BlocAdmin;
  private readonly transport: NodeTransport;
  private readonly readMethod: "GET" | "POST";

  constructor(options: BlocClientOptions) {
    this.transport = new NodeTransport(options.url, options.token, options.timeoutMs ?? 0);
    this.readMethod = options.readMethod ?? defaultReadMethod();
    this.admin = new BlocAdmin(this.transport);
  }

  /**
   * Signs in with email and password (POST /api/authenticate, no token needed): the
   * answer's `token` is for a client of its own, `new BlocClient({ url, token })`.
   */
  static async authenticate(options: { url: string; email: string; password: string; timeoutMs?: number }): Promise<SignedIn> {
    const transport = new NodeTransport(options.url, "", options.timeoutMs ?? 0);
    try {
      return await transport.json<SignedIn>({ method: "POST", path: "/api/authenticate", json: { email: options.email, password: options.password } }, [200]);
    } finally {
      transport.close();
    }
  }

  /** Changes the token's user's own password (an unscoped token only). */
  async changeOwnPassword(currentPassword: string, newPassword: string): Promise<void> {
    await this.transport.json<undefined>({ method: "POST", path: "/api/me/password", json: { currentPassword, newPassword } }, [204]);
  }

  /** Adds one record; with `files` (field slug → file) it is sent as multipart/form-data. */
  addData(input: AddDataInput, files?: Readonly<Record<string, UploadFile>>): Promise<AddDataResult> {
    const headers: Record<string, string> = input.idempotencyKey === undefined ? {} : { "idempotency-key": input.idempotencyKey };
    const fields = addDataFields(input);
    if (files && Object.keys(files).length > 0) {
      return this.transport.json({ method: "POST", path: "/api/add-data", stream: multipartBody(fields, files), headers }, [200]);
    }
    return this.transport.json({ method: "POST", path: "/api/add-data", json: fields, headers }, [200]);
  }

  /** One page of records with the counts over every matching record. */
  async getData<F extends string = string>(query: GetDataQuery): Promise<GetDataResult<F>> {
    const answer = await this.transport.json<{ data: Record<string, unknown> }>(
      { method: this.readMethod, path: "/api/get-data", json: query }, [200],
    );
    return getDataResult<F>(answer.data);
  }

  /**
   * Every page from `currentPage` (default 1) to the last, `pageSize` records each
   * (default: the query's resultLimit, else 500). Pages are numbered, so records added
   * meanwhile shift newest-first pages; page oldest first (`reverse: true`) to read a bloc
   * that is being written.
   */
  async *pages<F extends string = string>(query: GetDataQuery, pageSize = query.resultLimit ?? 500): AsyncGenerator<GetDataResult<F>> {
    for (let page = query.currentPage ?? 1; ; page += 1) {
      const result = await this.getData<F>({ ...query, resultLimit: pageSize, currentPage: page });
      if (result.records.length > 0) yield result;
      if (result.records.length < pageSize || page * pageSize >= result.count) return;
    }
  }

  /**
   * A bloc's record events, live, as they are committed (GET /api/events): only those of
   * records this token may see. Resume after a disconnection with the last event's `id`.
   */
  events(blocId: BlocId, options?: StreamOptions): AsyncGenerator<StreamEvent> {
    return streamEvents(this.transport, blocId, options);
  }

  /** Every matching record, page after page (see `pages`). */
  async *records<F extends string = string>(query: GetDataQuery, pageSize?: number): AsyncGenerator<DataRecord<F>> {
    for await (const page of this.pages<F>(query, pageSize)) yield* page.records;
  }

  /** A JSON report: rows of the requested fields, oldest first unless `reverse`. */
  async getDataReport(query: ReportQuery): Promise<ReportRow[]> {
    const answer = await this.transport.json<{ data: ReportRow[] }>(
      { method: this.readMethod, path: "/api/get-data-report", json: reportBody(query) }, [200],
    );
    return answer.data;
  }

  /** A report as an .xlsx workbook (the spec's `blob`) or CSV, streamed. */
  async getDataReportStream(query: ReportQuery, format: ReportFormat): Promise<ReportDownload> {
    const incoming = await this.transport.stream({
      method: this.readMethod, path: "/api/get-data-report", json: reportBody(query, format === "xlsx" ? "blob" : "csv"),
    });
    const name = dispositionName(incoming.headers["content-disposition"]);
    return {
      stream: incoming.body,
      contentType: incoming.headers["content-type"] ?? CONTENT_TYPES[format],
      filename: safeName(name ?? `report-${query.stationID}.${format}`),
    };
  }

  /**
   * Saves a report to `target`: a file path, or an existing directory to save it in under
   * the service's file name. Returns the path written and its size.
   */
  async saveDataReport(query: ReportQuery, format: ReportFormat, target: string): Promise<{ path: string; bytes: number }> {
    const download = await this.getDataReportStream(query, format);
    const isDirectory = await stat(target).then((s) => s.isDirectory(), () => false);
    const file = isDirectory ? path.join(target, download.filename) : target;
    let bytes = 0;
    await pipeline(download.stream, async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        bytes += chunk.length;
        yield chunk;
      }
    }, createWriteStream(file));
    return { path: file, bytes };
  }

  /** What a form needs to add to a bloc (its fields, their rules, its module) and what this token may do there. */
  blocFields(blocId: BlocId): Promise<BlocFields> {
    return this.transport.json<BlocFields>({ method: "GET", path: `/api/blocs/${encodeURIComponent(String(blocId))}/fields` }, [200]);
  }

  /** Records this token can see per hour or day of a window, counted as get-data counts them. */
  timeline(query: TimelineQuery): Promise<TimelineResult> {
    return this.transport.json<TimelineResult>({ method: "GET", path: timelinePath(query) }, [200]);
  }

  /** One record this token can see, by its ID, as get-data shows it; 404 (BlocApiError) when it is hidden, deleted or never made. */
  async record(blocId: string | number, recordId: number | string): Promise<DataRecord> {
    const path = `/api/blocs/${encodeURIComponent(String(blocId))}/records/${encodeURIComponent(String(recordId))}`;
    return (await this.transport.json<{ record: DataRecord }>({ method: "GET", path }, [200])).record;
  }

  /**
   * Names of the users `ids` who created records this token can see in the bloc (user ID →
   * name); IDs that created none it can see are left out. At most BLOC_MAX_RESULT_LIMIT IDs.
   */
  async userNames(blocId: string | number, ids: readonly string[]): Promise<Record<string, string>> {
    const path = `/api/blocs/${encodeURIComponent(String(blocId))}/user-names?ids=${encodeURIComponent(ids.join(","))}`;
    return (await this.transport.json<{ names: Record<string, string> }>({ method: "GET", path }, [200])).names;
  }

  /** Updates every record whose fields equal `searchItems`; the IDs updated (none is not an error). */
  async updateRecordsByMatchingValues(input: UpdateInput): Promise<number[]> {
    return (await this.transport.json<{ updated_record_ids: number[] }>(updateRequest(input), [200])).updated_record_ids;
  }

  /** Deletes every record whose fields equal `searchItems` (an admin can restore them); the IDs deleted. */
  async deleteRecordsByMatchingValues(input: DeleteInput): Promise<number[]> {
    return (await this.transport.json<{ deleted_record_ids: number[] }>(deleteRequest(input), [200])).deleted_record_ids;
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.transport.close();
  }
}
