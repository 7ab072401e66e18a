'use strict';
// mono-agent NodeRepl server: one per run, inside the sandbox. Reads length-prefixed JSON requests on fd 0
// ("<bytes>\n<json>"), the first line being "TOKEN <hex>" chosen by the host. Replies are written straight to fd 1 as
// "\n\x01MONO-REPL <token> <bytes>\n<json>". Program output (console.*, process.stdout/stderr.write) is captured and
// returned inside the reply, so it can never look like a reply; anything else that reaches fd 1 lacks the token.
// Everything is inside this function so no binding of the server is visible to the user's code (node -e runs
// top-level declarations in the global scope the REPL shares).
//
// The user's code runs in this same realm and its changes persist, so it can replace any global or prototype
// method (Buffer.from, Buffer.concat, JSON.stringify, Array.prototype.push, typed-array getters, process.stdin
// listeners, ...). The token and the request/reply bytes therefore never pass through anything looked up at run
// time: every builtin the server uses is captured here, before any user code runs, and is called directly;
// requests are read from fd 0 privately (not through process.stdin, whose listeners and chunks user code can
// reach); frames are built from primitive strings, encoded by a captured TextEncoder and written by a captured
// fs.writeSync on a byte array whose byteLength is an own property (so no prototype getter sees the frame); the
// fs binding those functions call into is frozen so it cannot be patched. Frames stay on fd 1: the sandbox port
// carries only stdio, and another fd would be just as writable by the user's code, so the token is what makes a
// frame authentic. Known limits (an in-process attacker with the V8 inspector, a native addon or worker threads
// racing large writes) are outside what a same-process server can prevent; the inspector entry points are closed
// below as far as Node 20 allows.
(function monoAgentReplServer() {
const repl = require('node:repl');
const util = require('node:util');
const fs = require('node:fs');
const { Writable, PassThrough } = require('node:stream');
const setTimeout_ = setTimeout;

// --- builtins captured before any user code runs ---
const apply = Reflect.apply;
const defineProperty = Object.defineProperty;
const freeze = Object.freeze;
const getPrototypeOf = Object.getPrototypeOf;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const uncurry = (fn) => (self, ...args) => apply(fn, self, args);
const U8 = Uint8Array;
const taLength = uncurry(getOwnPropertyDescriptor(getPrototypeOf(U8.prototype), 'length').get);
const taSet = uncurry(getPrototypeOf(U8.prototype).set);
const encoder = new TextEncoder();
const encodeUtf8 = encoder.encode.bind(encoder);
const decoder = new TextDecoder('utf-8', { fatal: false });
const decodeUtf8 = decoder.decode.bind(decoder);
const stringify = JSON.stringify;
const parseJson = JSON.parse;
const isSafeInteger = Number.isSafeInteger;
const inspect = util.inspect;
const writeSync = fs.writeSync;
const fsRead = fs.read;
const exit = process.exit.bind(process);
const setImmediate_ = setImmediate;
const nextTick = process.nextTick.bind(process);
const NumberCtor = Number;
const StringCtor = String;
const strSlice = uncurry(String.prototype.slice);
const AB = ArrayBuffer;

// fs.writeSync/fs.read call the fs binding by property at run time; process.binding('fs') hands user code that very
// object, so freeze it (and the request prototype fs.read assigns its callback on) before anyone can patch them.
// The inspector binding could read this closure's variables: its entry points are removed before it is frozen.
try {
  const fsBinding = process.binding('fs');
  if (fsBinding.FSReqCallback) freeze(fsBinding.FSReqCallback.prototype);
  freeze(fsBinding);
} catch (e) { /* no process.binding in this Node: nothing user code could patch either */ }
try {
  const ib = process.binding('inspector');
  for (const k of ['Connection', 'MainThreadConnection', 'open', 'url', 'waitForDebugger', 'callAndPauseOnStart']) {
    try { delete ib[k]; } catch (e) { /* not configurable: left as is */ }
  }
  freeze(ib);
} catch (e) { /* no inspector in this build */ }
// SIGUSR1 would start the inspector's network listener; a listener of our own keeps it from doing so
process.on('SIGUSR1', () => {});

const MARK = '\x01MONO-REPL ';
let token = null;
let captured = [];
let capturedBytes = 0;
let dropped = 0;
const MAX_CAPTURE = 8 * 1024 * 1024; // per reply, like the process runner's per-stream bound
// The host refuses (and kills us for) a reply body over 16 MiB (ReplFrames.MAX_BODY); JSON escaping can inflate the
// captured characters past it, so an oversized reply is re-sent without its output.
const MAX_BODY = 16 * 1024 * 1024 - 4096;

// A UTF-8 byte array that no prototype getter ever sees: fs.writeSync reads buffer.byteLength, so it is an own value.
function bytesOf(str) {
  const b = encodeUtf8(str);
  defineProperty(b, 'byteLength', { __proto__: null, value: taLength(b) });
  return b;
}

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
  let body = bytesOf(replyJson(r));
  let len = taLength(body);
  if (len > MAX_BODY) {
    const note = '(output of ' + len + ' bytes was too large for one reply and was dropped)\n';
    const cut = (s) => (typeof s === 'string' && s.length > 1024 * 1024 ? strSlice(s, 0, 1024 * 1024) + ' … [truncated]' : s);
    r = { __proto__: null, id: r.id, ok: r.ok, value: cut(r.value), error: cut(r.error), output: [{ __proto__: null, stream: 'stderr', text: note }] };
    body = bytesOf(replyJson(r));
    len = taLength(body);
  }
  // one array holding header and body, written with as few syscalls as the pipe allows
  const header = encodeUtf8('\n' + MARK + token + ' ' + len + '\n');
  const hlen = taLength(header);
  const total = hlen + len;
  const frame = new U8(total);
  defineProperty(frame, 'byteLength', { __proto__: null, value: total });
  taSet(frame, header, 0);
  taSet(frame, body, hlen);
  let off = 0;
  while (off < total) {
    try {
      off += writeSync(1, frame, off, total - off, null);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
    }
  }
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
let ended = false;
function enqueue(req) {
  const node = { __proto__: null, req, next: null };
  if (qTail) qTail.next = node; else qHead = node;
  qTail = node;
  pump();
}
function pump() {
  if (busy) return;
  if (!qHead) {
    if (ended) exit(0);
    return;
  }
  const node = qHead;
  qHead = node.next;
  if (!qHead) qTail = null;
  busy = true;
  handle(node.req, () => { busy = false; pump(); });
}

// fd 0 is read privately with a captured fs.read into buffers only this closure holds (process.stdin would hand
// every chunk to any listener the user's code adds, and accept chunks it emits). Pending bytes live in inAb
// [inStart, inEnd); its capacity is tracked here rather than read from a user-replaceable getter.
const READ_SIZE = 1 << 16;
const readAb = new AB(READ_SIZE);
const readView = new U8(readAb);
defineProperty(readView, 'byteLength', { __proto__: null, value: READ_SIZE });
let inCap = READ_SIZE;
let inAb = new AB(inCap);
let inStart = 0;
let inEnd = 0;
const MAX_HEAD = 128; // "TOKEN <32 hex>" or a decimal length

function append(n) {
  if (inEnd + n > inCap) {
    const keep = inEnd - inStart;
    let cap = inCap;
    while (cap < keep + n) cap *= 2;
    const next = new AB(cap);
    taSet(new U8(next), new U8(inAb, inStart, keep), 0);
    inAb = next;
    inCap = cap;
    inStart = 0;
    inEnd = keep;
  }
  taSet(new U8(inAb), new U8(readAb, 0, n), inEnd);
  inEnd += n;
}

function parse() {
  const view = new U8(inAb, 0, inEnd);
  for (;;) {
    let nl = -1;
    for (let i = inStart; i < inEnd && i <= inStart + MAX_HEAD; i++) {
      if (view[i] === 10) { nl = i; break; }
    }
    if (nl < 0) {
      if (inEnd - inStart > MAX_HEAD) exit(4);
      return;
    }
    const head = decodeUtf8(new U8(inAb, inStart, nl - inStart));
    if (token === null) {
      // the first line, before any user code has run
      if (strSlice(head, 0, 6) !== 'TOKEN ') exit(3);
      token = strSlice(head, 6);
      inStart = nl + 1;
      emit({ __proto__: null, id: 0, ok: true, ready: true, node: process.version, output: [] });
      continue;
    }
    const len = NumberCtor(head);
    if (!isSafeInteger(len) || len < 0) exit(4);
    if (inEnd - (nl + 1) < len) return;
    const req = parseJson(decodeUtf8(new U8(inAb, nl + 1, len)));
    inStart = nl + 1 + len;
    if (req === null || typeof req !== 'object' || typeof req.id !== 'number' || typeof req.code !== 'string') exit(4);
    enqueue({ __proto__: null, id: req.id, code: req.code });
  }
}

let backoff = 1;
function readMore() {
  fsRead(0, readView, 0, READ_SIZE, null, (err, n) => {
    if (err) {
      // fd 0 turns non-blocking if the user's code opens process.stdin: poll instead of failing
      if (err.code === 'EAGAIN') {
        setTimeout_(readMore, backoff);
        backoff = backoff < 50 ? backoff * 2 : 50;
        return;
      }
      exit(5);
    }
    backoff = 1;
    if (n === 0) {
      ended = true;
      if (!busy && !qHead) exit(0);
      return;
    }
    append(n);
    parse();
    readMore();
  });
}
readMore();
})();
