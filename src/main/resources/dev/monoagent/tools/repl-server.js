'use strict';
// mono-agent NodeRepl server: one per run, inside the sandbox. Reads length-prefixed JSON requests on stdin
// ("<bytes>\n<json>"), the first stdin line being "TOKEN <hex>" chosen by the host. Replies are written straight to
// fd 1 as "\n\x01MONO-REPL <token> <bytes>\n<json>". Program output (console.*, process.stdout/stderr.write) is
// captured and returned inside the reply, so it can never look like a reply; anything else that reaches fd 1 lacks
// the token, which never leaves this closure.
// Everything is inside this function so no binding of the server is visible to the user's code (node -e runs
// top-level declarations in the global scope the REPL shares).
(function monoAgentReplServer() {
const repl = require('node:repl');
const util = require('node:util');
const fs = require('node:fs');
const { Writable, PassThrough } = require('node:stream');

const writeSync = fs.writeSync;
const MARK = '\x01MONO-REPL ';
let token = null;
let captured = [];
let capturedBytes = 0;
let dropped = 0;
const MAX_CAPTURE = 8 * 1024 * 1024; // per reply, like the process runner's per-stream bound
// The host refuses (and kills us for) a reply body over 16 MiB (ReplFrames.MAX_BODY); JSON escaping can inflate the
// captured characters past it, so an oversized reply is re-sent without its output.
const MAX_BODY = 16 * 1024 * 1024 - 4096;

function emit(obj) {
  let body = Buffer.from(JSON.stringify(obj), 'utf8');
  if (body.length > MAX_BODY) {
    obj.output = [{ stream: 'stderr', text: '(output of ' + body.length + ' bytes was too large for one reply and was dropped)\n' }];
    for (const k of ['value', 'error']) {
      if (typeof obj[k] === 'string' && obj[k].length > 1024 * 1024) obj[k] = obj[k].slice(0, 1024 * 1024) + ' … [truncated]';
    }
    body = Buffer.from(JSON.stringify(obj), 'utf8');
  }
  const buf = Buffer.concat([Buffer.from('\n' + MARK + token + ' ' + body.length + '\n', 'utf8'), body]);
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(1, buf, off, buf.length - off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
    }
  }
}

function capture(name) {
  return function write(chunk, encoding, cb) {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8');
    if (capturedBytes + text.length > MAX_CAPTURE) {
      dropped += text.length;
    } else {
      capturedBytes += text.length;
      const last = captured[captured.length - 1];
      if (last && last.stream === name) last.text += text; else captured.push({ stream: name, text });
    }
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') process.nextTick(done);
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
  if (!(err instanceof Error)) return util.inspect(err);
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

// The REPL runs user code inside its domain; a synchronous throw goes to the domain's 'error' event instead of the
// eval callback, so the pending evaluation is settled from there too. Errors with nothing pending (timers, late
// callbacks) are reported as stderr output of the next reply.
let pending = null;
server._domain.on('error', (e) => {
  if (pending) {
    const settle = pending;
    pending = null;
    settle({ err: e, value: undefined });
  } else {
    capture('stderr')('Uncaught ' + cleanStack(unwrap(e)) + '\n');
  }
});

function unwrap(e) {
  return e && e.err instanceof Error ? e.err : e;
}

let counter = 0;
function evaluate(code) {
  counter++;
  return new Promise((resolve) => {
    pending = resolve;
    const settle = (r) => {
      if (pending === resolve) {
        pending = null;
        resolve(r);
      }
    };
    try {
      server.eval(code + '\n', server.context, 'REPL' + counter, (err, value) => settle({ err, value }));
    } catch (err) {
      settle({ err, value: undefined });
    }
  });
}

async function handle(req) {
  const { err, value } = await evaluate(req.code);
  await new Promise((r) => setImmediate(r));
  const output = captured;
  if (dropped > 0) output.push({ stream: 'stderr', text: '(' + dropped + ' more characters of output were dropped)\n' });
  captured = [];
  capturedBytes = 0;
  dropped = 0;
  if (err) {
    emit({ id: req.id, ok: false, error: 'Uncaught ' + cleanStack(unwrap(err)), output });
  } else {
    emit({ id: req.id, ok: true, value: util.inspect(value, { showProxy: true, colors: false, depth: 4 }), output });
  }
}

let inbuf = Buffer.alloc(0);
let queue = Promise.resolve();
process.stdin.on('data', (chunk) => {
  inbuf = Buffer.concat([inbuf, chunk]);
  for (;;) {
    const nl = inbuf.indexOf(10);
    if (nl < 0) return;
    const head = inbuf.subarray(0, nl).toString('utf8');
    if (token === null) {
      if (!head.startsWith('TOKEN ')) process.exit(3);
      token = head.slice(6).trim();
      inbuf = inbuf.subarray(nl + 1);
      emit({ id: 0, ok: true, ready: true, node: process.version });
      continue;
    }
    const len = Number(head);
    if (!Number.isSafeInteger(len) || len < 0) process.exit(4);
    if (inbuf.length < nl + 1 + len) return;
    const req = JSON.parse(inbuf.subarray(nl + 1, nl + 1 + len).toString('utf8'));
    inbuf = inbuf.subarray(nl + 1 + len);
    queue = queue.then(() => handle(req)).catch((e) => emit({ id: req.id, ok: false, error: 'Internal: ' + e, output: [] }));
  }
});
process.stdin.on('end', () => { queue.then(() => process.exit(0)); });
})();
