/**
 * A CSV report cell back to the value stored. The service prefixes `'` to text a
 * spreadsheet would run as a formula (starting with = + - @, tab or CR) and to text that
 * already starts with `'`, so removing one leading `'` always gives the stored value.
 */
export function unguardCsvCell(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}

/** The same guard, for CSV files written on the client's side (the CLI's `get --csv`). */
export function guardCsvCell(text: string): string {
  return /^[=+\-@\t\r']/.test(text) ? `'${text}` : text;
}
