// The workbench's name and version as package.json states them: the one place either is written.
import pkg from '../package.json' with { type: 'json' };

export const APP_NAME: string = pkg.name;
export const APP_VERSION: string = pkg.version;
