/**
 * A CSV report cell back to the value stored. The service puts a `'` before every piece
 * of a cell (split on `,`, `;`, tab, CR or LF) that a spreadsheet could run as a formula
 * (starting with = + - @, tab or CR) and before every piece that already starts with `'`,
 * so removing each `'` that starts the cell or follows one of those separators always
 * gives the stored value. For a cell of one piece, that is its leading `'`.
 */
export function unguardCsvCell(cell: string): string {
  return cell.includes("'") ? cell.replace(GUARD, "") : cell;
}

// The service's rule (src/domain/csv-text.ts), repeated: the client imports nothing of the service.
const RISKY_PIECE = /(?:^|[,;\t\r\n])[=+\-@\t\r']/;
const RISKY_START = /(?<=^|[,;\t\r\n])(?=[=+\-@\t\r'])/g;
const GUARD = /(?<=^|[,;\t\r\n])'/g;

/** The same guard, for CSV files written on the client's side (the CLI's `get --csv`). */
export function guardCsvCell(text: string): string {
  return RISKY_PIECE.test(text) ? text.replace(RISKY_START, "'") : text;
}
