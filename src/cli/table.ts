/**
 * A plain-text table like Lotus's `lib/tablewriter`: a header row, each column as wide as its
 * widest cell plus two spaces, and columns that no row fills left out entirely.
 */
export function renderTable(
  columns: readonly string[],
  rows: ReadonlyArray<Readonly<Record<string, string | undefined>>>,
): string {
  const shown = columns.filter((column) => rows.some((row) => row[column] !== undefined));
  const widths = shown.map((column) => Math.max(column.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `${cells.map((cell, i) => cell.padEnd((widths[i] as number) + 2)).join('')}\n`;
  return line(shown) + rows.map((row) => line(shown.map((column) => row[column] ?? ''))).join('');
}
