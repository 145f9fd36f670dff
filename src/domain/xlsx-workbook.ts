import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { DeflatedSpool, ZipOutput, type ZipPart } from "./xlsx-zip.js";
import { columnName, needsSharedString, sharedStringXml, sheetName, xmlEscape } from "./xlsx-text.js";

/** Rows per sheet, the header included: Excel's (and LibreOffice's) limit. */
export const SHEET_ROWS = 1_048_576;
/** Hyperlinks Excel keeps per sheet; later file cells hold their reference as text only. */
export const SHEET_LINKS = 65_530;
/** A sheet whose XML passes this size is closed (the archive has no ZIP64 records). */
const SHEET_BYTES = 3 * 1024 ** 3;

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships";
const SHEET_OPEN = `${XML_HEAD}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheetData>`;

interface Sheet { readonly name: string; readonly part: ZipPart; rows: number; links: { ref: string; url: string }[] }

/**
 * An .xlsx workbook written as it goes: sheet XML streams into the archive, every string
 * a cell of its own (inline, `xml:space="preserve"`), except text that looks like an
 * `_xHHHH_` escape, which goes in the shared-string table, spooled to a temporary file
 * because its part can only follow the sheets. Rows beyond a sheet's limit continue on
 * a new sheet that repeats the header. Nothing is a formula; numbers stay text, exactly
 * as stored.
 */
export class XlsxWorkbook {
  private readonly zip = new ZipOutput();
  private readonly sheets: { name: string; links: { ref: string; url: string }[] }[] = [];
  private sheet: Sheet | undefined;
  private readonly columns: readonly string[];
  private shared: { spool: DeflatedSpool; dir: string } | undefined;
  private pendingShared = "";
  private sharedCount = 0;

  /**
   * `linkFor`: the link a cell of column `i` holding `text` gets, if any.
   * `sheetRows`: rows per sheet, the header included (smaller only in tests).
   */
  constructor(
    private readonly baseName: string,
    private readonly header: readonly string[],
    private readonly linkFor?: (i: number, text: string) => string | undefined,
    private readonly sheetRows = SHEET_ROWS,
  ) {
    this.columns = header.map((_, i) => columnName(i));
    // Temporary files go when the reader leaves, as when the workbook ends.
    this.zip.readable.once("close", () => { void this.cleanUp(); });
  }

  get readable(): Readable { return this.zip.readable; }

  private async openSheet(): Promise<boolean> {
    const number = this.sheets.length + 1;
    const name = sheetName(this.baseName, number);
    this.sheets.push({ name, links: [] });
    this.sheet = { name, part: this.zip.part(`xl/worksheets/sheet${number}.xml`), rows: 0, links: this.sheets[number - 1]!.links };
    this.sheet.part.append(SHEET_OPEN);
    this.addRow(this.header, false);
    return this.flush();
  }

  private async closeSheet(sheet: Sheet): Promise<boolean> {
    let tail = "</sheetData>";
    if (sheet.links.length > 0) {
      tail += "<hyperlinks>" + sheet.links.map((l, i) => `<hyperlink ref="${l.ref}" r:id="rId${i + 1}"/>`).join("") + "</hyperlinks>";
    }
    return (await sheet.part.write(tail + "</worksheet>")) && sheet.part.end();
  }

  private sharedIndex(text: string): number {
    this.pendingShared += `<si><t xml:space="preserve">${sharedStringXml(text)}</t></si>`;
    return this.sharedCount++;
  }

  /** Writes one row; resolves false when the reader left. */
  async row(texts: readonly string[]): Promise<boolean> {
    if (!this.add(texts)) {
      if (this.sheet && !(await this.closeSheet(this.sheet))) return false;
      this.sheet = undefined;
      if (!(await this.openSheet())) return false;
      this.add(texts);
    }
    return true;
  }

  /**
   * Adds one row to what the next flush writes, without awaiting anything; false (and
   * nothing added) when the row needs a new sheet first, which `row` then opens.
   */
  add(texts: readonly string[]): boolean {
    const sheet = this.sheet;
    if (!sheet || sheet.rows >= this.sheetRows || sheet.part.written > SHEET_BYTES) return false;
    this.addRow(texts, true);
    return true;
  }

  /** The row's XML, appended to the sheet; `linked`: file cells become links (not in the header). */
  private addRow(texts: readonly string[], linked: boolean): void {
    const sheet = this.sheet!;
    const number = ++sheet.rows;
    let xml = `<row r="${number}">`;
    for (let i = 0; i < texts.length; i += 1) {
      const text = texts[i]!;
      if (text === "") continue;
      const ref = this.columns[i]! + number;
      xml += needsSharedString(text)
        ? `<c r="${ref}" t="s"><v>${this.sharedIndex(text)}</v></c>`
        : `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xmlEscape(text)}</t></is></c>`;
      if (linked && this.linkFor && sheet.links.length < SHEET_LINKS) {
        const url = this.linkFor(i, text);
        if (url !== undefined) sheet.links.push({ ref, url });
      }
    }
    sheet.part.append(xml + "</row>");
  }

  /** Hands the rows added so far to the archive, waiting while it or the reader is behind; false when the reader left. */
  async flush(): Promise<boolean> {
    if (this.pendingShared !== "") {
      if (!this.shared) {
        const dir = await mkdtemp(join(tmpdir(), "bloc-xlsx-"));
        const spool = new DeflatedSpool(createWriteStream(join(dir, "sst")), this.zip.readable);
        this.shared = { spool, dir };
        if (!(await spool.write(`${XML_HEAD}<sst xmlns="${MAIN_NS}">`))) return false;
      }
      const text = this.pendingShared;
      this.pendingShared = "";
      if (!(await this.shared.spool.write(text))) return false;
    }
    return this.sheet ? this.sheet.part.flush() : !this.zip.readable.destroyed;
  }

  /** Writes the remaining parts; the readable ends once the reader took them. */
  async end(): Promise<void> {
    if (!this.sheet && !(await this.openSheet())) return;
    if (!(await this.flush())) return;
    if (!(await this.closeSheet(this.sheet!))) return;
    const zip = this.zip;
    let ok = true;
    for (const [i, sheet] of this.sheets.entries()) {
      if (!ok || sheet.links.length === 0) continue;
      ok = await zip.text(`xl/worksheets/_rels/sheet${i + 1}.xml.rels`, `${XML_HEAD}<Relationships xmlns="${PKG_REL_NS}">` +
        sheet.links.map((l, n) => `<Relationship Id="rId${n + 1}" Type="${REL_NS}/hyperlink" Target="${xmlEscape(l.url)}" TargetMode="External"/>`).join("") +
        "</Relationships>");
    }
    if (ok && this.shared) {
      await this.shared.spool.write("</sst>");
      const { crc, size } = await this.shared.spool.end();
      ok = await zip.deflatedFile("xl/sharedStrings.xml", join(this.shared.dir, "sst"), crc, size);
    }
    const sheetIds = this.sheets.map((_, i) => i + 1);
    const parts: [string, string][] = [
      ["xl/workbook.xml", `${XML_HEAD}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets>` +
        this.sheets.map((s, i) => `<sheet name="${xmlEscape(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join("") + "</sheets></workbook>"],
      ["xl/_rels/workbook.xml.rels", `${XML_HEAD}<Relationships xmlns="${PKG_REL_NS}">` +
        sheetIds.map((n) => `<Relationship Id="rId${n}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${n}.xml"/>`).join("") +
        `<Relationship Id="rId${sheetIds.length + 1}" Type="${REL_NS}/styles" Target="styles.xml"/>` +
        (this.shared ? `<Relationship Id="rId${sheetIds.length + 2}" Type="${REL_NS}/sharedStrings" Target="sharedStrings.xml"/>` : "") +
        "</Relationships>"],
      ["xl/styles.xml", `${XML_HEAD}<styleSheet xmlns="${MAIN_NS}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>` +
        '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'],
      ["_rels/.rels", `${XML_HEAD}<Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`],
      ["[Content_Types].xml", `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        sheetIds.map((n) => `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join("") +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
        (this.shared ? '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' : "") +
        "</Types>"],
    ];
    for (const [name, text] of parts) if (ok) ok = await zip.text(name, text);
    if (ok) zip.end();
    await this.cleanUp();
  }

  /** Stops writing: the reader left, or writing failed. */
  destroy(error?: Error): void {
    this.zip.readable.destroy(error);
  }

  private async cleanUp(): Promise<void> {
    const shared = this.shared;
    if (!shared) return;
    shared.spool.destroy();
    await rm(shared.dir, { recursive: true, force: true });
  }
}
