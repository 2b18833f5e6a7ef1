// The backend service and the settings file both transports share.
export { Service, type ServiceOptions, type SettingsStore } from './service';
export { fileSettings, userDataDir, defaultRunsDir, APP_NAME } from './settings';
