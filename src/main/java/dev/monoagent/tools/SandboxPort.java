package dev.monoagent.tools;

import java.util.List;

import dev.monoagent.common.Violation;

import dev.monoagent.sandbox.CommandSpec;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.SandboxProcess;
import dev.monoagent.sandbox.StartOutcome;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * What the command tools need from the sandbox engine: one-shot commands and long-lived processes, both under the
 * policy. The tools package depends on this narrow port, not on the engine, so the fail-closed path
 * ({@link #UNAVAILABLE}) and the engine can be swapped in tests; {@link #of(Sandbox)} binds it to the real engine.
 * The engine itself emits {@code ViolationObserved} events for what it refuses (attributed by the spec's ids), so
 * the command tools only show them in the result text and never re-emit them.
 */
public interface SandboxPort {

    /** Runs a command to completion under the policy. */
    ExecOutcome exec(CommandSpec spec);

    /**
     * As {@link #exec(CommandSpec)}, handing output text to {@code live} while the command runs (ports that cannot
     * stream deliver it only with the outcome).
     */
    default ExecOutcome exec(CommandSpec spec, java.util.function.Consumer<String> live) {
        return exec(spec);
    }

    /** Starts a long-lived process under the policy (stdin/stdout streams), for NodeRepl. */
    Started start(CommandSpec spec);

    /**
     * The paths the engine denies writing by literal path beyond the policy's names (above all the targets of the
     * workspace's protected symlinks, {@code .env -> config/prod.env}): the file tools refuse them as a command would.
     */
    default List<java.nio.file.Path> deniedPaths() {
        return List.of();
    }

    /** The result of {@link #start}. */
    sealed interface Started {
        /** The process runs inside the sandbox. */
        record Running(LiveProcess process) implements Started {}

        /** Nothing started; {@code failure.code()} is {@code sandbox_prepare_failed}. */
        record NotStarted(ExecOutcome.PrepareFailed failure) implements Started {}
    }

    /** A running sandboxed process. Closing it kills its process group and releases engine resources. */
    interface LiveProcess extends AutoCloseable {
        OutputStream stdin();

        InputStream stdout();

        InputStream stderr();

        boolean isAlive();

        /**
         * Records protected-path changes made since the last checkpoint while the process still runs (after each
         * REPL evaluation), attributed to {@code callId}; the engine emits them as violations.
         */
        default List<Violation> checkpoint(String callId) {
            return List.of();
        }

        /** Lets a process stopped by {@link #checkpoint} run again, before the next evaluation is sent. */
        default void resume() {
        }

        /**
         * Before the next evaluation: null when the process may go on; else why the engine ended it (the protected
         * files changed since it started, so it would run under an old protected set).
         */
        default String refresh() {
            return null;
        }

        /** Why the engine ended the process, or null. */
        default String endedBecause() {
            return null;
        }

        /** Kills the process (SIGTERM, SIGKILL after 1 s) and cleans up; idempotent. */
        @Override
        void close();
    }

    /** The port over the real sandbox facade. */
    static SandboxPort of(Sandbox sandbox) {
        return new SandboxPort() {
            @Override
            public ExecOutcome exec(CommandSpec spec) {
                return sandbox.exec(spec);
            }

            @Override
            public ExecOutcome exec(CommandSpec spec, java.util.function.Consumer<String> live) {
                return sandbox.exec(spec, (stderr, text) -> live.accept(text));
            }

            @Override
            public List<java.nio.file.Path> deniedPaths() {
                return sandbox.deniedPaths();
            }

            @Override
            public Started start(CommandSpec spec) {
                return switch (sandbox.start(spec)) {
                    case ExecOutcome.PrepareFailed pf -> new Started.NotStarted(pf);
                    case StartOutcome.Started s -> new Started.Running(live(s.process()));
                };
            }
        };
    }

    private static LiveProcess live(SandboxProcess p) {
        return new LiveProcess() {
            @Override
            public OutputStream stdin() {
                return p.stdin();
            }

            @Override
            public InputStream stdout() {
                return p.stdout();
            }

            @Override
            public List<Violation> checkpoint(String callId) {
                return p.checkpoint(callId);
            }

            @Override
            public void resume() {
                p.resume();
            }

            @Override
            public String refresh() {
                return p.refresh();
            }

            @Override
            public String endedBecause() {
                return p.endedBecause();
            }

            @Override
            public InputStream stderr() {
                return p.stderr();
            }

            @Override
            public boolean isAlive() {
                return p.isAlive();
            }

            @Override
            public void close() {
                p.destroy();
            }
        };
    }

    /** The engine is not usable and the policy is fail-closed: nothing ever runs. */
    SandboxPort UNAVAILABLE = unavailable("sandbox engine unavailable");

    /** A port that refuses everything with {@code sandbox_prepare_failed} and the given reason. */
    static SandboxPort unavailable(String reason) {
        ExecOutcome.PrepareFailed f = ExecOutcome.PrepareFailed.unavailable(reason);
        return new SandboxPort() {
            @Override
            public ExecOutcome exec(CommandSpec spec) {
                return f;
            }

            @Override
            public Started start(CommandSpec spec) {
                return new Started.NotStarted(f);
            }
        };
    }
}
