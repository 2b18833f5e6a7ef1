// The backend service, and the settings file and user-data folder both transports share.
export { Service, type ServiceOptions } from './service';
export {
  SETTINGS_FILE,
  defaultWorldDir,
  fileSettings,
  runsDirOf,
  settingsStore,
  userDataDir,
  type SettingsStore,
} from './settings';
