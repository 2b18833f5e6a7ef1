// The app's settings and the user-data folder they live in. One settings file for the desktop app (electron-store)
// and `prh serve` (conf, the library under electron-store): same folder, same `config.json`, same schema and defaults.
import Conf from 'conf';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Settings } from '../../shared/settings';

const APP_NAME = 'prh-workbench';
export const SETTINGS_FILE = 'config'; // <user data>/config.json

export type SettingsStore = { get(): Settings; set(patch: Partial<Settings>): Settings };

// electron-store and conf both hold the file's JSON in `.store`; a hand-broken file reads as the defaults.
export function settingsStore(file: { store: Record<string, unknown> }): SettingsStore {
  const get = (): Settings => {
    const parsed = Settings.safeParse(file.store);
    return parsed.success ? parsed.data : Settings.parse({});
  };
  return {
    get,
    set(patch) {
      const next = Settings.parse({ ...get(), ...patch });
      file.store = next;
      return next;
    },
  };
}

// Without Electron (`prh`): the same file through conf.
export const fileSettings = (userData: string): SettingsStore =>
  settingsStore(new Conf<Record<string, unknown>>({ cwd: userData, configName: SETTINGS_FILE, projectName: APP_NAME }));

// Where Electron's app.getPath('userData') points for this app on each OS, for `prh`; PRH_HOME overrides it.
export function userDataDir(): string {
  if (process.env.PRH_HOME) return process.env.PRH_HOME;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_NAME);
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
}

// The folders in it: runs/ (unless the settings name another), and the lab's datasets/, the default world first.
export const runsDirOf = (settings: Settings, userData: string): string => settings.runsDir ?? join(userData, 'runs');
export const datasetsDir = (userData: string): string => join(userData, 'datasets');
export const DEFAULT_WORLD = 'world-paper-like';
export const defaultWorldDir = (userData: string): string => join(datasetsDir(userData), DEFAULT_WORLD);
