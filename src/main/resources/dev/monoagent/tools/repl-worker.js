'use strict';
// mono-agent NodeRepl worker: the user's code runs here, in a worker thread of the REPL server process
// (repl-server.js), in an isolate of its own. The server's main thread holds the per-evaluation keys that make a reply
// frame authentic and never runs user code; this worker sees no key at all (v8.getHeapSnapshot() here shows only this
// isolate). Requests arrive and replies leave through a private MessagePort handed over before any user code runs
// and kept in this closure only: a port is a capability, not a secret, so nothing the user's code can read (a heap
// snapshot, its own memory) lets it post on it.
//
// The user's code runs in this realm and its changes persist, so it can replace any global or prototype method. The
// reply path therefore never passes through anything looked up at run time: the builtins used are captured here,
// before any user code runs, and replies are built from primitive strings. Program output (console.*,
// process.stdout/stderr.write) is captured and returned inside the reply; writes straight to fd 1 carry no key and
// stay plain output on the host. Known limit: a worker cannot chdir (process.chdir throws here).
(function monoAgentReplWorker() {
const wt = require('node:worker_threads');
const parentPort = wt.parentPort;
parentPort.once('message', (hello) => start(hello.port));
// The handle lists would hand user code the live port object.
for (const k of ['_getActiveHandles', '_getActiveRequests']) {
  try { delete process[k]; } catch (e) { /* not configurable: left as is */ }
}

function start(port) {
const repl = require('node:repl');
const util = require('node:util');
const { Writable, PassThrough } = require('node:stream');

// --- builtins captured before any user code runs ---
const apply = Reflect.apply;
const freeze = Object.freeze;
const getPrototypeOf = Object.getPrototypeOf;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const uncurry = (fn) => (self, ...args) => apply(fn, self, args);
const U8 = Uint8Array;
const taLength = uncurry(getOwnPropertyDescriptor(getPrototypeOf(U8.prototype), 'length').get);
const encoder = new TextEncoder();
const encodeUtf8 = encoder.encode.bind(encoder);
const stringify = JSON.stringify;
const parseJson = JSON.parse;
const inspect = util.inspect;
const setImmediate_ = setImmediate;
const nextTick = process.nextTick.bind(process);
const StringCtor = String;
const strSlice = uncurry(String.prototype.slice);

// The inspector binding could read this closure's variables (and so reach the port): its entry points are removed.
try {
  const ib = process.binding('inspector');
  for (const k of ['Connection', 'MainThreadConnection', 'open', 'url', 'waitForDebugger', 'callAndPauseOnStart']) {
    try { delete ib[k]; } catch (e) { /* not configurable: left as is */ }
  }
  freeze(ib);
} catch (e) { /* no inspector in this build */ }

const post = uncurry(getPrototypeOf(port).postMessage);
let captured = [];
let capturedBytes = 0;
let dropped = 0;
const MAX_CAPTURE = 8 * 1024 * 1024; // per reply, like the process runner's per-stream bound
// The host refuses (and kills us for) a reply body over 16 MiB (ReplFrames.MAX_BODY); JSON escaping can inflate the
// captured characters past it, so an oversized reply is re-sent without its output.
const MAX_BODY = 16 * 1024 * 1024 - 4096;

// JSON text of a reply built only from primitives (captured stringify of strings), so no toJSON or getter of the
// user's can change its id, ok flag or structure.
function replyJson(r) {
  let out = '';
  const n = r.output.length;
  for (let i = 0; i < n; i++) {
    const c = r.output[i];
    const stream = c && c.stream === 'stderr' ? 'stderr' : 'stdout';
    const text = c && typeof c.text === 'string' ? c.text : '';
    out += (i ? ',' : '') + '{"stream":"' + stream + '","text":' + stringify(text) + '}';
  }
  let json = '{"id":' + stringify(r.id) + ',"ok":' + (r.ok ? 'true' : 'false');
  if (typeof r.value === 'string') json += ',"value":' + stringify(r.value);
  if (typeof r.error === 'string') json += ',"error":' + stringify(r.error);
  if (r.ready) json += ',"ready":true,"node":' + stringify(r.node);
  return json + ',"output":[' + out + ']}';
}

function emit(r) {
  let json = replyJson(r);
  if (json.length > MAX_BODY / 3) {
    // measured in bytes only when it could be too large (UTF-8 is at most 3 bytes per UTF-16 unit)
    const len = taLength(encodeUtf8(json));
    if (len > MAX_BODY) {
      const note = '(output of ' + len + ' bytes was too large for one reply and was dropped)\n';
      const cut = (s) => (typeof s === 'string' && s.length > 1024 * 1024 ? strSlice(s, 0, 1024 * 1024) + ' … [truncated]' : s);
      json = replyJson({ __proto__: null, id: r.id, ok: r.ok, value: cut(r.value), error: cut(r.error), output: [{ __proto__: null, stream: 'stderr', text: note }] });
    }
  }
  post(port, json);
}

function capture(name) {
  return function write(chunk, encoding, cb) {
    // the user's own output: whatever they replaced only changes their output, no token or request passes here
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8');
    if (capturedBytes + text.length > MAX_CAPTURE) {
      dropped += text.length;
    } else {
      capturedBytes += text.length;
      const last = captured[captured.length - 1];
      if (last && last.stream === name) last.text += text; else captured.push({ stream: name, text });
    }
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') nextTick(done);
    return true;
  };
}
process.stdout.write = capture('stdout');
process.stderr.write = capture('stderr');

const sink = new Writable({ write(chunk, enc, cb) { cb(); } });
const server = repl.start({ prompt: '', input: new PassThrough(), output: sink, terminal: false, useGlobal: true,
  ignoreUndefined: false, preview: false });
server.removeAllListeners('exit');
server.on('exit', () => {});

// The error's first line plus the frames of the user's code (REPL internals and the server's own frames dropped).
function cleanStack(err) {
  if (!(err instanceof Error)) return inspect(err);
  if (typeof err.stack !== 'string') return String(err);
  const lines = err.stack.split('\n').filter((l) => l.trim() !== '');
  const keep = [];
  for (const l of lines) {
    if (/^\s+at /.test(l) && (/node:(repl|internal|vm|domain|events)|\[eval\]|new Promise \(<anonymous>\)/.test(l))) break;
    keep.push(l);
  }
  return keep.join('\n');
}

process.on('uncaughtException', (e) => capture('stderr')('Uncaught ' + cleanStack(e) + '\n'));
process.on('unhandledRejection', (e) => capture('stderr')('Uncaught (in promise) ' + cleanStack(e) + '\n'));

// The REPL's own eval and context, taken before user code can replace them on the server object.
const replEval = server.eval;
const replContext = server.context;

// The REPL runs user code inside its domain; a synchronous throw goes to the domain's 'error' event instead of the
// eval callback, so the pending evaluation is settled from there too. Errors with nothing pending (timers, late
// callbacks) are reported as stderr output of the next reply.
let pending = null;
server._domain.on('error', (e) => {
  if (pending) {
    const settle = pending;
    pending = null;
    settle(e, undefined);
  } else {
    capture('stderr')('Uncaught ' + cleanStack(unwrap(e)) + '\n');
  }
});

function unwrap(e) {
  return e && e.err instanceof Error ? e.err : e;
}

// Callbacks rather than promises or async functions: Promise.prototype.then and friends are user-replaceable, and
// the order in which requests are evaluated and answered must not be.
let counter = 0;
function evaluate(code, cb) {
  counter++;
  let settled = false;
  const settle = (err, value) => {
    if (settled) return;
    settled = true;
    if (pending === settle) pending = null;
    cb(err, value);
  };
  pending = settle;
  try {
    apply(replEval, server, [code + '\n', replContext, 'REPL' + counter, (err, value) => settle(err, value)]);
  } catch (err) {
    settle(err, undefined);
  }
}

function handle(req, done) {
  evaluate(req.code, (err, value) => {
    setImmediate_(() => {
      const output = captured;
      if (dropped > 0) output[output.length] = { __proto__: null, stream: 'stderr', text: '(' + dropped + ' more characters of output were dropped)\n' };
      captured = [];
      capturedBytes = 0;
      dropped = 0;
      try {
        if (err) {
          emit({ __proto__: null, id: req.id, ok: false, error: 'Uncaught ' + cleanStack(unwrap(err)), output });
        } else {
          const shown = inspect(value, { __proto__: null, showProxy: true, colors: false, depth: 4 });
          emit({ __proto__: null, id: req.id, ok: true, value: typeof shown === 'string' ? shown : '', output });
        }
      } catch (e) {
        let why = 'error';
        try { why = StringCtor(e); } catch (e2) { /* keep the generic word */ }
        emit({ __proto__: null, id: req.id, ok: false, error: 'Internal: ' + why, output: [] });
      }
      done();
    });
  });
}

// Requests, one at a time, in arrival order; list nodes have no prototype, so no setter of the user's sees them.
let qHead = null;
let qTail = null;
let busy = false;
function enqueue(req) {
  const node = { __proto__: null, req, next: null };
  if (qTail) qTail.next = node; else qHead = node;
  qTail = node;
  pump();
}
function pump() {
  if (busy) return;
  if (!qHead) return;
  const node = qHead;
  qHead = node.next;
  if (!qHead) qTail = null;
  busy = true;
  handle(node.req, () => { busy = false; pump(); });
}

// Requests come only through the private port; evaluation starts from a fresh macrotask so the user's code never
// runs inside the port's message callback (where async_hooks.executionAsyncResource() would be the port).
port.on('message', (m) => {
  if (typeof m !== 'string') return;
  let req;
  try { req = parseJson(m); } catch (e) { return; }
  if (req === null || typeof req !== 'object' || typeof req.id !== 'number' || typeof req.code !== 'string') return;
  const id = req.id;
  const code = req.code;
  setImmediate_(() => enqueue({ __proto__: null, id, code }));
});
emit({ __proto__: null, id: 0, ok: true, ready: true, node: process.version, output: [] });
}
})();
