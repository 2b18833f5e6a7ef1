// Source maps for the engine's own TypeScript, not for its packages. Under tsx, Node's source-map support is on (stack
// traces name .ts lines), and Node then also parses every .map file a package ships as it loads the package: 18 MB
// for tfjs's bundles, ~0.3 s of each process's start (every `prh` command and job worker loads tfjs). Each process
// entry imports this module first. Where the support is off (the bundled desktop app), nothing changes.
import Module from 'node:module';

type SourceMapsSupport = (enabled: boolean, options: { nodeModules: boolean; generatedCode: boolean }) => void;
type Loader = (this: unknown, module: unknown, filename: string) => unknown;

if (process.sourceMapsEnabled) {
  const api = (Module as unknown as { setSourceMapsSupport?: SourceMapsSupport }).setSourceMapsSupport;
  if (api)
    api(true, { nodeModules: false, generatedCode: true }); // Node >= 22.14
  else {
    // Node 20: a package's CommonJS files compile with the support off (their maps are read at compile time only).
    const extensions = (Module as unknown as { _extensions: Record<string, Loader> })._extensions;
    const js = extensions['.js'];
    extensions['.js'] = function (module, filename) {
      if (!/[\\/]node_modules[\\/]/.test(filename) || !process.sourceMapsEnabled)
        return js.call(this, module, filename);
      process.setSourceMapsEnabled(false);
      try {
        return js.call(this, module, filename);
      } finally {
        process.setSourceMapsEnabled(true);
      }
    };
  }
}
