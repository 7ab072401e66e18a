package dev.monoagent.sandbox;

import dev.monoagent.common.ChildProcesses;
import dev.monoagent.common.TaskExecutor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs one process in its own process group ({@code setsid}, which execs in place because a JVM child is never a
 * group leader, so pid == pgid). Timeout → SIGTERM to the whole group, SIGKILL one second later. stdout and stderr are
 * drained concurrently and kept up to a cap each (the rest is read and dropped, so the child never blocks on a full
 * pipe). stdin is written from its own task and closed, so commands that read stdin see EOF.
 */
final class ProcessRunner {
    /**
     * Runs one blocking-I/O pump of the sandbox (a pipe read to its end, the bridge's reader, the bridge start) on the
     * core executor's virtual I/O threads ({@link TaskExecutor#io}).
     */
    static <T> TaskExecutor.Task<T> pump(String name, Callable<T> work) {
        return TaskExecutor.shared().io(name, work);
    }

    /** As {@link #pump(String, Callable)} for a loop without a result. */
    static TaskExecutor.Task<Void> pump(String name, Runnable work) {
        return TaskExecutor.shared().io(name, () -> {
            work.run();
            return null;
        });
    }

    /**
     * @param exitCode real exit status (128 + signal when a signal ended it)
     * @param signal   the signal that ended it (from our timeout, or 128+N by shell convention), else 0
     */
    record Result(int exitCode, int signal, byte[] stdout, byte[] stderr, boolean truncated, boolean timedOut,
                  long elapsedMillis) {
        String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }

        String err() {
            return new String(stderr, StandardCharsets.UTF_8);
        }
    }

    private ProcessRunner() {}

    static Process spawn(Path setsid, List<String> argv, Map<String, String> env, Path cwd) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (setsid != null) {
            cmd.add(setsid.toString());
        }
        cmd.addAll(argv);
        return ChildProcesses.builder(cmd, env).directory(cwd.toFile()).start();
    }

    static Result run(Path setsid, List<String> argv, Map<String, String> env, Path cwd, String stdin,
                      Duration timeout, long maxBytes) throws IOException {
        return run(setsid, argv, env, cwd, stdin, timeout, maxBytes, OutputListener.NONE);
    }

    /** As above, handing each chunk of output to {@code live} while the command runs. */
    static Result run(Path setsid, List<String> argv, Map<String, String> env, Path cwd, String stdin,
                      Duration timeout, long maxBytes, OutputListener live) throws IOException {
        return run(setsid, argv, env, cwd, stdin, timeout, maxBytes, live, p -> { });
    }

    /** As above; {@code started} gets the process as soon as it exists (so the host can stop it mid-run). */
    static Result run(Path setsid, List<String> argv, Map<String, String> env, Path cwd, String stdin,
                      Duration timeout, long maxBytes, OutputListener live,
                      java.util.function.Consumer<Process> started) throws IOException {
        long t0 = System.nanoTime();
        Process p = spawn(setsid, argv, env, cwd);
        started.accept(p);
        TaskExecutor.Task<Void> in = pump("stdin", () -> feed(p.getOutputStream(), stdin));
        Bounded out = new Bounded(maxBytes);
        Bounded err = new Bounded(maxBytes);
        Future<?> fo = pump("stdout", () -> out.drain(p.getInputStream(), new Utf8Chunks(false, live))).future();
        Future<?> fe = pump("stderr", () -> err.drain(p.getErrorStream(), new Utf8Chunks(true, live))).future();
        boolean timedOut = false;
        int sentSignal = 0;
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                timedOut = true;
                sentSignal = 15;
                killGroup(p, "TERM");
                if (!p.waitFor(1, TimeUnit.SECONDS)) {
                    sentSignal = 9;
                    killGroup(p, "KILL");
                    p.waitFor();
                }
            }
        } catch (InterruptedException e) {
            killGroup(p, "KILL");
            Thread.currentThread().interrupt();
        }
        try {
            // the group may hold the pipes open after the leader exits; don't wait for them forever
            fo.get(2, TimeUnit.SECONDS);
            fe.get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            killGroup(p, "KILL");
        }
        in.cancel();
        int code = p.isAlive() ? 137 : p.exitValue();
        int signal = timedOut ? sentSignal : (code > 128 && code < 128 + 65 ? code - 128 : 0);
        return new Result(code, signal, out.bytes(), err.bytes(), out.truncated || err.truncated, timedOut,
                (System.nanoTime() - t0) / 1_000_000);
    }

    static void feed(OutputStream os, String stdin) {
        try (os) {
            if (stdin != null) {
                os.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException ignored) {
            // the child closed stdin early; not an error
        }
    }

    /** Signals the whole process group of {@code p} (pid == pgid, see class comment), then the leader itself. */
    static void killGroup(Process p, String sig) {
        long pid = p.pid();
        try {
            Process k = ChildProcesses.builder("kill", "-" + sig, "--", "-" + pid).redirectErrorStream(true).start();
            k.getInputStream().readAllBytes();
            k.waitFor(2, TimeUnit.SECONDS);
        } catch (IOException e) {
            // fall through to the leader
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (sig.equals("KILL")) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    /** Keeps the first {@code max} bytes of a stream and reads the rest to /dev/null. */
    static final class Bounded {
        private final long max;
        private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        volatile boolean truncated;

        Bounded(long max) {
            this.max = max;
        }

        void drain(InputStream in, Utf8Chunks live) {
            byte[] b = new byte[16384];
            try (in) {
                for (int n; (n = in.read(b)) > 0; ) {
                    live.accept(b, n);
                    synchronized (buf) {
                        long room = max - buf.size();
                        if (room > 0) {
                            buf.write(b, 0, (int) Math.min(room, n));
                        }
                        if (n > room) {
                            truncated = true;
                        }
                    }
                }
            } catch (IOException ignored) {
                // pipe closed by a kill
            }
        }

        byte[] bytes() {
            synchronized (buf) {
                return buf.toByteArray();
            }
        }
    }

    /** Turns raw pipe chunks into text for a listener, holding back an incomplete trailing UTF-8 sequence. */
    static final class Utf8Chunks {
        private final boolean stderr;
        private final OutputListener live;
        private final byte[] carry = new byte[4];
        private int carried;

        Utf8Chunks(boolean stderr, OutputListener live) {
            this.stderr = stderr;
            this.live = live;
        }

        void accept(byte[] b, int n) {
            if (live == OutputListener.NONE) {
                return;
            }
            byte[] all = new byte[carried + n];
            System.arraycopy(carry, 0, all, 0, carried);
            System.arraycopy(b, 0, all, carried, n);
            int end = all.length;
            // back up over a trailing partial sequence (at most 3 bytes)
            int i = end - 1;
            while (i >= 0 && i >= end - 3 && (all[i] & 0xC0) == 0x80) {
                i--;
            }
            if (i >= 0) {
                int lead = all[i] & 0xFF;
                int need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
                if (end - i < need) {
                    end = i;
                }
            }
            carried = all.length - end;
            System.arraycopy(all, end, carry, 0, carried);
            if (end > 0) {
                live.output(stderr, new String(all, 0, end, StandardCharsets.UTF_8));
            }
        }
    }
}
