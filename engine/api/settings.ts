// The settings file shared by the desktop app (electron-store) and `prh serve` (conf, the library under
// electron-store): same folder, same `config.json`, same schema.
import Conf from 'conf';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Settings } from '../../shared/settings';
import type { SettingsStore } from './service';

export const APP_NAME = 'prh-workbench';

// Where Electron's app.getPath('userData') points for this app on each OS; PRH_HOME overrides it.
export function userDataDir(): string {
  if (process.env.PRH_HOME) return process.env.PRH_HOME;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_NAME);
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
}

export const defaultRunsDir = (dir = userDataDir()) => join(dir, 'runs');

export function fileSettings(dir = userDataDir()): SettingsStore {
  const conf = new Conf<Record<string, unknown>>({ cwd: dir, configName: 'config', projectName: APP_NAME });
  const get = (): Settings => {
    const parsed = Settings.safeParse(conf.store);
    return parsed.success ? parsed.data : Settings.parse({}); // a hand-broken file falls back to defaults
  };
  return {
    get,
    set(patch) {
      const next = Settings.parse({ ...get(), ...patch });
      conf.store = next;
      return next;
    },
  };
}
