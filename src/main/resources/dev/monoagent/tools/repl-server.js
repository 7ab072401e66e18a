'use strict';
// mono-agent NodeRepl server: one per run, inside the sandbox. Its main thread never runs user code; the user's code
// runs in a worker thread (repl-worker.js, embedded below by the host) in an isolate of its own, so nothing here is
// visible to it through v8.getHeapSnapshot(), globals or prototypes.
//
// Protocol. The host's first line on fd 0 is "KEY <64 hex>": a per-process HMAC key, read before the worker exists
// and then held only in a KeyObject (the read buffer is zeroed). Requests follow as "<bytes>\n<json {id, code}>" and
// carry no secret, so user code that reads fd 0 itself learns nothing it could sign with. Each reply is written to
// fd 1 as "\n\x01MONO-REPL <id> <bytes> <hmac>\n<json>" with hmac = HMAC-SHA256(key, "<id>\n" + json): it binds the
// reply to its request and to its exact bytes, so neither a frame written by user code (which shares fd 1) nor one
// whose body another writer's bytes interleaved with can pass; the host ends the REPL on the first frame that fails.
// Known limit (not fixable in one process): the key is in this process's memory, which code in the worker can read
// through /proc/self/mem and sign a forged reply with. The frames separate program output from
// replies; they do not make a reply trustworthy once agent code ran here. See docs/sandbox-probes.md.
(function monoAgentReplServer() {
const fs = require('node:fs');
const crypto = require('node:crypto');
const { Worker, MessageChannel } = require('node:worker_threads');
const WORKER_SOURCE = /*WORKER_SOURCE*/null;

function readLineSync() {
  const buf = Buffer.alloc(256);
  let n = 0;
  while (n < buf.length) {
    let got;
    try {
      got = fs.readSync(0, buf, n, 1, null);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      throw e;
    }
    if (got === 0) process.exit(3);
    if (buf[n] === 10) break;
    n += got;
  }
  const line = buf.toString('latin1', 0, n);
  buf.fill(0);
  return line;
}

const first = readLineSync();
if (!/^KEY [0-9a-f]{64}$/.test(first)) process.exit(3);
const raw = Buffer.from(first.slice(4), 'hex');
const key = crypto.createSecretKey(raw);
raw.fill(0);

const MARK = '\n\x01MONO-REPL ';
function emit(id, json) {
  const body = Buffer.from(json, 'utf8');
  const mac = crypto.createHmac('sha256', key).update(id + '\n').update(body).digest('hex');
  const frame = Buffer.concat([Buffer.from(MARK + id + ' ' + body.length + ' ' + mac + '\n', 'latin1'), body]);
  let off = 0;
  while (off < frame.length) {
    try {
      off += fs.writeSync(1, frame, off, frame.length - off, null);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
    }
  }
}

const inFlight = new Set();
let ended = false;
const { port1, port2 } = new MessageChannel();
const worker = new Worker(WORKER_SOURCE, { eval: true, stdout: false, stderr: false });
worker.postMessage({ port: port1 }, [port1]);
worker.on('error', (e) => {
  try { fs.writeSync(2, 'NodeRepl worker failed: ' + (e && e.stack ? e.stack : String(e)) + '\n'); } catch (e2) { /* gone */ }
  process.exit(1);
});
worker.on('exit', (code) => process.exit(code || 0));
let ready = false;
port2.on('message', (json) => {
  if (typeof json !== 'string') return;
  let r;
  try { r = JSON.parse(json); } catch (e) { return; }
  if (r === null || typeof r !== 'object' || !Number.isSafeInteger(r.id)) return;
  if (r.id === 0) {
    if (ready || r.ready !== true) return;
    ready = true;
    emit(0, json);
    readMore();
    return;
  }
  if (!inFlight.delete(r.id)) return; // only one reply per request the host sent
  emit(r.id, json);
  if (ended && inFlight.size === 0) process.exit(0);
});

// Requests: "<bytes>\n<json>", forwarded to the worker as the JSON text.
let pending = Buffer.alloc(0);
const MAX_HEAD = 32;
function parse() {
  for (;;) {
    const nl = pending.indexOf(10);
    if (nl < 0) {
      if (pending.length > MAX_HEAD) process.exit(4);
      return;
    }
    const len = Number(pending.toString('latin1', 0, nl));
    if (!Number.isSafeInteger(len) || len < 0) process.exit(4);
    if (pending.length - (nl + 1) < len) return;
    const text = pending.toString('utf8', nl + 1, nl + 1 + len);
    pending = pending.subarray(nl + 1 + len);
    let req;
    try { req = JSON.parse(text); } catch (e) { process.exit(4); }
    if (req === null || typeof req !== 'object' || !Number.isSafeInteger(req.id) || req.id <= 0
        || typeof req.code !== 'string') process.exit(4);
    inFlight.add(req.id);
    port2.postMessage(JSON.stringify({ id: req.id, code: req.code }));
  }
}
// process.stdin, not fs.read: a read parked in the thread pool would keep process.exit (the worker ended) waiting for
// the next byte from the host.
function readMore() {
  process.stdin.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    parse();
  });
  process.stdin.on('end', () => {
    ended = true;
    if (inFlight.size === 0) process.exit(0);
  });
  process.stdin.on('error', () => process.exit(5));
}
})();
