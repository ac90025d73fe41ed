/**
 * A "CSV" button: downloads a file made in the page (a Blob behind an object
 * URL, followed by an `<a download>`), so nothing is fetched again and the
 * CSP needs nothing new (a download link is no image, script or connection).
 */
export function downloadText(filename: string, text: string, type = 'text/csv;charset=utf-8'): void {
  downloadBlob(filename, new Blob([text], { type }));
}

/** Saves `blob` as `filename` (an `<a download>` over an object URL). */
export function downloadBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has its own copy once it started.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** `what` names the panel for screen readers ("Download Pages as CSV"). */
export function CsvButton({ what, filename, csv }: { what: string; filename: string; csv: () => string }) {
  return (
    <button type="button" class="csv" aria-label={`Download ${what} as CSV`} onClick={() => downloadText(filename, csv())}>
      CSV
    </button>
  );
}
