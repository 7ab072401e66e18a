package dev.monoagent.sandbox;

import dev.monoagent.common.Violation;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A long-lived process started by {@link Sandbox#start} (e.g. the NodeRepl): its streams, a group-wide
 * {@link #destroy()} (SIGTERM, SIGKILL after one second), and {@link #waitFor()}. When it exits the engine cleans up
 * its mount points and runs the protected-path scan; the resulting violations are in {@link #violations()}.
 */
public final class SandboxProcess {
    private final Process process;
    private final CompletableFuture<List<Violation>> done;

    private final java.util.function.Function<String, List<Violation>> checkpoint;
    private final Runnable resume;
    /** Set by a checkpoint that froze the process, cleared by {@link #resume()}. */
    private volatile boolean frozen;

    SandboxProcess(Process process, Supplier<List<Violation>> onExit) {
        this(process, onExit, callId -> List.of(), () -> { });
    }

    SandboxProcess(Process process, Supplier<List<Violation>> onExit,
                   java.util.function.Function<String, List<Violation>> checkpoint, Runnable resume) {
        this(process, onExit, checkpoint, resume, self -> null);
    }

    SandboxProcess(Process process, Supplier<List<Violation>> onExit,
                   java.util.function.Function<String, List<Violation>> checkpoint, Runnable resume,
                   java.util.function.Function<SandboxProcess, String> refresh) {
        this.process = process;
        this.done = process.onExit().thenApplyAsync(p -> onExit.get(),
                dev.monoagent.common.TaskExecutor.shared().ioExecutor());
        this.checkpoint = checkpoint;
        this.resume = resume;
        this.refresh = refresh;
    }

    private final java.util.function.Function<SandboxProcess, String> refresh;
    /** Why the engine ended this process (null: it did not). */
    private volatile String endedBecause;

    /**
     * Before the process's next step (a REPL evaluation): the engine re-checks the protected files and, when they
     * changed since it started, ends it (it ran under the old protected set). Returns why it was ended, else null.
     */
    public String refresh() {
        String why = endedBecause;
        return why != null ? why : refresh.apply(this);
    }

    /** Stopped between evaluations (by a checkpoint, until {@link #resume()}): nothing of it runs. */
    public boolean stopped() {
        return frozen && process.isAlive();
    }

    /** Why the engine ended this process, or null. */
    public String endedBecause() {
        return endedBecause;
    }

    private volatile Runnable rebaseWhileFrozen = () -> { };

    /**
     * What {@link #end} runs first when the process is stopped between evaluations: nothing of it ran since its last
     * checkpoint, so what changed since (the human's doing) must not be judged as its own in the after-exit scan.
     */
    void rebaseWhileFrozen(Runnable r) {
        rebaseWhileFrozen = r;
    }

    /** Ends the process on the engine's behalf, remembering why (shown to whoever used it). */
    void end(String why) {
        if (endedBecause == null) {
            endedBecause = why;
        }
        if (frozen) {
            rebaseWhileFrozen.run();
        }
        ProcessRunner.killGroup(process, "KILL");
        if (frozen) {
            resume();
        }
    }

    /**
     * Between two evaluations: stops every process of the command (verified, see {@link Freezer}; a freeze that cannot
     * be verified ends the process), then scans the protected paths and handles what changed since the last
     * checkpoint (attributed to {@code callId}) as after a command: new protected files and repositories are moved
     * out, since nothing sandboxed can touch the tree until {@link #resume()}.
     */
    public List<Violation> checkpoint(String callId) {
        frozen = true;
        return checkpoint.apply(callId);
    }

    /** Lets the process run again (before the next evaluation is sent). */
    public void resume() {
        frozen = false;
        resume.run();
    }

    public OutputStream stdin() {
        return process.getOutputStream();
    }

    public InputStream stdout() {
        return process.getInputStream();
    }

    public InputStream stderr() {
        return process.getErrorStream();
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for exit and for the post-exit cleanup; returns the exit code (128 + signal when signalled). */
    public int waitFor() throws InterruptedException {
        int code = process.waitFor();
        done.join();
        return code;
    }

    public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        return process.waitFor(timeout, unit);
    }

    /** SIGTERM to the process group, SIGKILL one second later if it is still alive. */
    public void destroy() {
        if (!process.isAlive()) {
            return;
        }
        if (frozen) {
            // a frozen process cannot act on SIGTERM (and a v1-frozen one dies of SIGKILL only when thawed)
            ProcessRunner.killGroup(process, "KILL");
            resume();
            return;
        }
        ProcessRunner.killGroup(process, "TERM");
        try {
            if (!process.waitFor(1, TimeUnit.SECONDS)) {
                ProcessRunner.killGroup(process, "KILL");
            }
        } catch (InterruptedException e) {
            ProcessRunner.killGroup(process, "KILL");
            Thread.currentThread().interrupt();
        }
    }

    /** Violations found after exit (completes after the process has exited). */
    public CompletableFuture<List<Violation>> violations() {
        return done;
    }
}
