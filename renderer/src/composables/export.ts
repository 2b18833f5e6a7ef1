// Export through the engine, then save through the browser's download (Electron shows its save dialog for it):
// which format is being exported, and one status line for the outcome.
import { ref } from 'vue';
import type { ExportedFile } from '../../../shared/api';

export function download(file: ExportedFile): void {
  const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: file.mime }));
  const a = Object.assign(document.createElement('a'), { href: url, download: file.filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const savedTo = (file: ExportedFile) =>
  file.savedTo ? `saved ${file.filename} (also in the run's report/)` : `saved ${file.filename}`;

export function useExport<F extends string>(
  request: (format: F) => Promise<ExportedFile>,
  opts: { saved?: (file: ExportedFile) => string; failed?: string } = {},
) {
  const exporting = ref<F | null>(null);
  const message = ref('');
  async function exportAs(format: F): Promise<void> {
    exporting.value = format;
    message.value = '';
    try {
      const file = await request(format);
      download(file);
      message.value = (opts.saved ?? savedTo)(file);
    } catch (err) {
      message.value = `${opts.failed ?? 'export failed'}: ${(err as Error).message}`;
    } finally {
      exporting.value = null;
    }
  }
  return { exporting, message, exportAs };
}
