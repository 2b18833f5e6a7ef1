// Save exported bytes through the browser's download (Electron shows its save dialog for the same call).
import type { ExportedFile } from '../../shared/api';

export function download(file: ExportedFile): void {
  const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: file.mime }));
  const a = Object.assign(document.createElement('a'), { href: url, download: file.filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
