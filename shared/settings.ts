// App settings: one JSON file (`config.json` in the app's user-data folder) written by electron-store in the
// desktop app and read by `prh serve` with the same library underneath (conf), so both see the same runs.
import { z } from 'zod';

export const Settings = z.object({
  runsDir: z.string().min(1).optional(), // default: <user data>/runs
  threads: z.number().int().min(1).max(256).optional(), // jobs at once; default: number of cores
  theme: z.enum(['system', 'light', 'dark']).default('system'),
  dataRoots: z.array(z.string().min(1)).max(32).optional(), // folders the browser of `prh serve` may list, beside the lab's datasets
});
export type Settings = z.infer<typeof Settings>;
