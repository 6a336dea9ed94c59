// Files made in the page (a scenario, a trace, a CSV, a run record, a PNG) are handed to the user
// as downloads: a blob: URL on an <a download>, which the page's CSP allows (no navigation,
// nothing fetched) and which works the same in Electron and in a browser.
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // Revoked later, not at once: the browser may still be reading the blob when click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
