// mono-agent srt bridge: one long-lived process per workspace that keeps the srt proxies up and wraps commands.
// Protocol: one JSON object per line. Requests {id, op, ...} on stdin; replies {id, ok, ...} and events
// {event: "violation", ...} on stdout. Nothing else may write to stdout, so console.log goes to stderr.
// argv[1]: absolute path of the verified engine's dist/index.js (imported, never resolved through NODE_PATH).
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

console.log = (...a) => console.error(...a);

// srt resolves programs by spawning `which` on every wrap (~3 ms each). Java already resolved and checked the tools
// (MONO_AGENT_TOOLS = {"bash": "/usr/bin/bash", ...}); srt's which() consults globalThis.Bun.which first (the only
// use of `Bun` in the pinned tree), so answer from that map and memoize anything else.
import childProcess, { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const known = JSON.parse(process.env.MONO_AGENT_TOOLS || '{}');
const memo = new Map(Object.entries(known));
// srt also asks for a tool by the absolute path the config gave it (`which /usr/bin/rg` at every initialize)
for (const p of Object.values(known)) memo.set(p, p);
globalThis.Bun = {
  which(bin) {
    if (memo.has(bin)) return memo.get(bin);
    const r = spawnSync('which', [bin], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 1000 });
    const found = r.status === 0 && r.stdout ? r.stdout.trim() : null;
    memo.set(bin, found);
    return found;
  },
};
// srt's initialize starts its socat bridges (UNIX-LISTEN on a socket path) and then looks for the sockets with growing
// sleeps between looks (0, 100, 200 … ms): the socket is never there at the first look, as socat takes a few ms to
// start, so every initialize slept 100 ms. A spawn of our socat with UNIX-LISTEN returns here once its socket exists
// (at most 1 s, polling every ms), so srt's first look finds it. Nothing else is changed: srt still checks the process
// and the sockets itself, and a socat that fails is found by its checks as before.
const realSpawn = childProcess.spawn;
const pollCell = new Int32Array(new SharedArrayBuffer(4));
childProcess.spawn = function (cmd, args, ...rest) {
  const child = Reflect.apply(realSpawn, this, [cmd, args, ...rest]);
  try {
    const m = cmd === known.socat && Array.isArray(args) ? /^UNIX-LISTEN:([^,]+),/.exec(String(args[0])) : null;
    if (m && child.pid) {
      const until = Date.now() + 1000;
      while (!existsSync(m[1]) && Date.now() < until) Atomics.wait(pollCell, 0, 0, 1);
    }
  } catch (e) { /* srt's own checks decide */ }
  return child;
};
syncBuiltinESMExports();
const send = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

// Every connection srt's proxy opens to a host loopback address (a granted host port in localhost mode) is reported
// as {event: "connect"}: srt records denies only, and a granted port can be a proxy forwarding outward, a Docker API
// or a debugger. Every TCP connect in this process goes through Socket.prototype.connect (net.connect normalises its
// arguments into an array first), so the hook sees the proxy's upstream dials whatever module imported them.
//
// The ports of mono-agent's own host listeners (the ChatGPT sign-in callback; MONO_AGENT_OWN_PORTS at start, then the
// ownPorts op whenever one opens or closes) are refused here, whatever srt's grants say and whatever host name the
// dial uses (a name can resolve to loopback; 0.0.0.0 reaches it too), and reported as a network violation.
import net from 'node:net';
import http from 'node:http';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
// Which wrapped command asked for a proxy dial. srt's proxies learn it from the proxy username each wrap gets
// (`srt.<base64 commandId>`, in HTTP_PROXY and so in the in-sandbox forwarders' CONNECT) and use it to attribute
// denies; the dial itself happens later in the same request's async flow. So each proxy request runs in a context
// holding its username, and the connect hook reads the command from there: an allowed dial is attributed the same
// way as srt attributes a denied one. The username is written by the sandboxed client: a forged one can misattribute,
// never authenticate (srt checks the token), as for srt's denies; Java only accepts a commandId it handed out.
const asker = new AsyncLocalStorage();
const commandOfUser = (user) => {
  if (typeof user !== 'string' || !user.startsWith('srt.')) return null;
  const id = Buffer.from(user.slice(4), 'base64').toString('utf8');
  return /^[A-Za-z0-9-]{1,100}$/.test(id) ? id : null;
};
const commandOfProxyAuth = (header) => {
  const m = /^Basic\s+(\S+)$/i.exec(String(header ?? ''));
  if (!m) return null;
  const pair = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  return commandOfUser(colon < 0 ? pair : pair.slice(0, colon));
};
const httpEmit = http.Server.prototype.emit;
http.Server.prototype.emit = function (name, req, ...rest) {
  if ((name === 'connect' || name === 'request') && req && req.headers) {
    let command = null;
    try { command = commandOfProxyAuth(req.headers['proxy-authorization']); } catch (e) { /* unattributed */ }
    return asker.run({ command }, () => Reflect.apply(httpEmit, this, [name, req, ...rest]));
  }
  return Reflect.apply(httpEmit, this, [name, req, ...rest]);
};
try {
  // srt's SOCKS leg (same library instance: srt imports its CommonJS main); the dial follows the handler at once
  const { Socks5Server } = createRequire(process.argv[1])('@pondwader/socks5-server');
  const setHandler = Socks5Server.prototype.setConnectionHandler;
  Socks5Server.prototype.setConnectionHandler = function (handler) {
    return Reflect.apply(setHandler, this, [function (conn, ...rest) {
      return asker.run({ command: commandOfUser(conn?.username) }, () => Reflect.apply(handler, this, [conn, ...rest]));
    }]);
  };
} catch (e) { /* an srt without that library: SOCKS dials stay unattributed */ }
const askingCommand = () => asker.getStore()?.command ?? null;
let ownPorts = new Set(JSON.parse(process.env.MONO_AGENT_OWN_PORTS || '[]'));
const socketConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  try {
    let o = args[0];
    if (Array.isArray(o)) o = o[0];
    const port = typeof o === 'object' && o !== null ? Number(o.port) : Number(o);
    const host = typeof o === 'object' && o !== null ? String(o.host ?? '') : String(args[1] ?? '');
    if (ownPorts.has(port)) {
      send({ event: 'violation', command: askingCommand(), time: new Date().toISOString(),
             line: `deny network-outbound ${host}:${port} (a listener of mono-agent itself on the host, such as the `
               + 'sign-in callback: never reachable from the sandbox)' });
      const err = Object.assign(new Error(`connect ECONNREFUSED ${host}:${port}`),
        { code: 'ECONNREFUSED', errno: -111, syscall: 'connect', address: host, port });
      process.nextTick(() => this.destroy(err));
      return this;
    }
    if (port > 0 && (host === '127.0.0.1' || host === '::1' || host === '[::1]' || host === 'localhost')) {
      send({ event: 'connect', host, port, command: askingCommand(), time: new Date().toISOString() });
    }
  } catch (e) { /* reporting never breaks a connection */ }
  return Reflect.apply(socketConnect, this, args);
};

const { SandboxManager } = await import(pathToFileURL(process.argv[1]).href);
const { randomUUID } = await import('node:crypto');
// Every wrapped command is this constant; Java passes the real script in MONO_AGENT_CMD (inherited through bwrap and
// apply-seccomp), so a wrap does not depend on the command and can be prepared before the command is known.
const COMMAND = '__mc=$MONO_AGENT_CMD; unset MONO_AGENT_CMD; eval "$__mc"';
let pre = null;          // a wrap prepared ahead of time: { commandId, wrapped }
// Wraps handed to Java whose cleanup has not come yet. srt removes its mount points only when its own counter of
// outstanding wraps is back at zero, and the prepared wrap holds one count of it: without dropping `pre` when the last
// handed-out wrap is cleaned up, a mount point (an empty .git among them) would outlive every sandbox.
let outstanding = 0;
let initialized = false;
let config = null;
let seen = 0;
let unsubscribe = null;
// Set once by renderMacos: srt's platform was forced to macOS in this process, which then never wraps for execution.
let forcedMacos = false;

function watchViolations() {
  const store = SandboxManager.getSandboxViolationStore();
  seen = store.getTotalCount();
  unsubscribe = store.subscribe((all) => {
    const total = store.getTotalCount();
    const fresh = Math.min(total - seen, all.length);
    seen = total;
    for (const v of all.slice(all.length - fresh)) {
      send({ event: 'violation', line: v.line, command: v.command ?? null,
             time: new Date(v.timestamp ?? Date.now()).toISOString() });
    }
  });
}

// The answer to a ping or a cleanup follows every event the feed had for us when it came (Java puts a command's
// result together after it): a turn of the event loop reads what the feed's socket holds, so turns are taken until
// one brings no new event — at most 2 s; a turn costs microseconds when nothing arrives.
async function drainFeed() {
  const until = Date.now() + 2000;
  for (let before = -1; before !== seen && Date.now() < until; ) {
    before = seen;
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  }
}

// extra: literal write denies for this one command (a protected path that appeared while a long-lived process keeps
// the engine from re-initialising); the rest of the filesystem config is the initialised one, unchanged.
async function freshWrap(extra) {
  const commandId = 'ma-' + randomUUID();
  const custom = Array.isArray(extra) && extra.length > 0
    ? { filesystem: { ...config.filesystem, denyWrite: [...config.filesystem.denyWrite, ...extra] } }
    : undefined;
  const wrapped = await SandboxManager.wrapWithSandbox(COMMAND, undefined, custom, undefined,
    { commandId, commandText: commandId });
  return { commandId, wrapped };
}

// Runs on the request queue after init and after each cleanup, so wrap cost is paid while the agent is thinking.
// srt only records mount points at wrap time (bwrap creates them when the command runs), so a pending wrap leaves
// nothing on the host; it holds one count of srt's active-sandbox counter until it is used or discarded.
async function prewrap() {
  if (initialized && !pre) {
    try { pre = await freshWrap(); } catch (e) { pre = null; }
  }
}

function discard() {
  if (pre) { pre = null; SandboxManager.cleanupAfterCommand(); }
}

async function teardown() {
  pre = null;
  outstanding = 0;
  if (unsubscribe) { unsubscribe(); unsubscribe = null; }
  if (initialized || forcedMacos) { initialized = false; await SandboxManager.reset(); }
}

const ops = {
  async init(req) {
    if (forcedMacos) throw new Error('this bridge rendered a macOS wrap and cannot initialize for commands');
    await teardown();
    config = req.config;
    await SandboxManager.initialize(config, undefined, true);
    initialized = true;
    watchViolations();
    const net = config.network.allowedDomains !== undefined
      ? await SandboxManager.waitForNetworkInitialization() : true;
    const deps = SandboxManager.checkDependencies(config.ripgrep);
    if (deps.errors.length === 0) enqueue(prewrap);
    return {
      network: net,
      errors: deps.errors,
      warnings: deps.warnings,
      globWarnings: SandboxManager.getLinuxGlobPatternWarnings(),
      proxyPort: SandboxManager.getProxyPort() ?? null,
      socksPort: SandboxManager.getSocksProxyPort() ?? null,
    };
  },
  async wrap(req) {
    // Wrapping before a successful initialize() yields a command with no network isolation: refuse.
    if (!initialized) throw new Error('not initialized');
    if (Array.isArray(req.allowedDomains) && config.network.allowedDomains !== undefined
        && JSON.stringify(req.allowedDomains) !== JSON.stringify(config.network.allowedDomains)) {
      config = { ...config, network: { ...config.network, allowedDomains: req.allowedDomains } };
      SandboxManager.updateConfig(config);
    }
    // Java asks for the prepared wrap only when the workspace layout it was made for is unchanged.
    if (req.usePrepared && pre) {
      const w = pre;
      pre = null;
      outstanding++;
      return { ...w, prepared: true };
    }
    discard();
    const fresh = await freshWrap(req.extraDenyWrite);
    outstanding++;
    return { ...fresh, prepared: false };
  },
  // For tests and diagnostics on a host that is not a Mac: srt's own macOS wrap (sandbox-exec with its generated
  // Seatbelt profile) for this config, with its macOS log monitor and proxies started as initialize() starts them.
  // srt reads process.platform on every call, so the platform is forced for the rest of this process; from then on
  // init and wrap refuse, so a wrap made for another platform is never handed out to run.
  async renderMacos(req) {
    if (initialized || forcedMacos) throw new Error('renderMacos needs a fresh bridge');
    forcedMacos = true;
    Object.defineProperty(process, 'platform', { value: 'darwin' });
    await SandboxManager.initialize(req.config, undefined, true);
    watchViolations();
    const commandId = 'ma-' + randomUUID();
    const wrapped = await SandboxManager.wrapWithSandbox(COMMAND, undefined, undefined, undefined,
      { commandId, commandText: commandId });
    return { commandId, wrapped, proxyPort: SandboxManager.getProxyPort() ?? null,
             socksPort: SandboxManager.getSocksProxyPort() ?? null };
  },
  async cleanup(req) {
    await drainFeed();
    SandboxManager.cleanupAfterCommand();
    if (outstanding > 0) outstanding--;
    // nothing handed out is alive any more: let srt's counter reach zero so it removes the mount points, then
    // prepare afresh (for the workspace without them) — unless Java is closing the engine (prepare: false), where
    // the shutdown that follows would wait for a wrap nobody uses
    if (outstanding === 0) discard();
    if (req.prepare !== false) enqueue(prewrap);
    return {};
  },
  async discard() {
    discard();
    return {};
  },
  async ping() {
    await drainFeed();
    return { initialized };
  },
  async shutdown() {
    await teardown();
    setImmediate(() => process.exit(0));
    return {};
  },
};

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
let queue = Promise.resolve();
function enqueue(task) {
  queue = queue.then(task, task);
}
rl.on('line', (line) => {
  // the own-ports list takes effect at once, not behind a wrap or an initialize in the queue
  try {
    const req = JSON.parse(line);
    if (req && req.op === 'ownPorts' && Array.isArray(req.ports)) {
      ownPorts = new Set(req.ports.map(Number));
      send({ id: req.id, ok: true });
      return;
    }
  } catch (e) { /* the queue below reports a bad request */ }
  queue = queue.then(async () => {
    let req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      send({ id: null, ok: false, error: 'bad request' });
      return;
    }
    const op = ops[req.op];
    if (!op) { send({ id: req.id, ok: false, error: 'unknown op ' + req.op }); return; }
    try {
      send({ id: req.id, ok: true, ...(await op(req)) });
    } catch (e) {
      send({ id: req.id, ok: false, error: String(e && e.message ? e.message : e) });
    }
  });
});
rl.on('close', () => { queue.then(teardown).finally(() => process.exit(0)); });
send({ event: 'ready', node: process.version });
