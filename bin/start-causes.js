// Why the desktop window could not open at `npm start`, as the one cause that happened and its remedy: a reader who
// is told "upgrade Node" when the network was down upgrades Node for nothing.

// Electron 45's installer (@electron/get) declares Node >= 22.12.
export const ELECTRON_NODE = [22, 12];
export const nodeTooOld = (version) => {
  const [major, minor] = version.split('.').map(Number);
  return major < ELECTRON_NODE[0] || (major === ELECTRON_NODE[0] && minor < ELECTRON_NODE[1]);
};

const NETWORK =
  /fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|getaddrinfo|socket hang up/i;
// What a Node too old for the installer's code throws (ES modules, builtins or syntax it lacks).
const ENGINE =
  /ERR_REQUIRE_ESM|ERR_REQUIRE_ASYNC_MODULE|ERR_UNKNOWN_BUILTIN_MODULE|SyntaxError|is not a function|is not defined/;

// `error`: the installer's error line; `node`: process.versions.node.
export function downloadFailure(error, node) {
  if (NETWORK.test(error))
    return `Electron's binary could not be downloaded: the network is unreachable (${error}); npm start downloads it once a network is there (ELECTRON_MIRROR names a mirror)`;
  if (nodeTooOld(node) && ENGINE.test(error))
    return `Electron's binary could not be downloaded: its installer needs Node ${ELECTRON_NODE.join('.')} or newer, this is Node ${node} (${error}); install Node 22 or 24 LTS`;
  return `Electron's binary could not be downloaded (${error})`;
}

// `stderr`: what Electron printed before it exited with `code`.
export function windowFailure(stderr, code) {
  const line = (re) =>
    stderr
      .split('\n')
      .find((l) => re.test(l))
      ?.trim();
  const sandbox = line(/no-sandbox|SUID sandbox|chrome-sandbox|setuid/i);
  if (sandbox)
    return `the desktop window did not start: Electron's sandbox could not start (${sandbox}); run npm start as a user other than root, or make node_modules/electron/dist/chrome-sandbox owned by root with mode 4755`;
  const display = line(/Missing X server|cannot open display|Authorization required|Wayland/i);
  if (display) return `the desktop window did not start: no display it could open (${display}); check DISPLAY`;
  return `the desktop window did not start (Electron exited with ${code})`;
}
