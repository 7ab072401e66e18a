package dev.monoagent.tools;

import dev.monoagent.common.Violation;
import dev.monoagent.sandbox.CommandSpec;
import dev.monoagent.sandbox.ExecOutcome;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * What the command tools need from the sandbox engine: one-shot commands and long-lived processes, both under the
 * policy. The tools package depends on this narrow port, not on the engine, so the fail-closed path
 * ({@link #UNAVAILABLE}) and the engine can be swapped in tests; {@code SandboxAdapter} binds it to the real
 * {@code sandbox.Sandbox}.
 */
public interface SandboxPort {

    /** Runs a command to completion under the policy. */
    ExecOutcome exec(CommandSpec spec);

    /** Starts a long-lived process under the policy (stdin/stdout streams), for NodeRepl. */
    Started start(CommandSpec spec);

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

        /** Violations the engine attributed to this process since the last call (then forgotten). */
        List<Violation> drainViolations();

        /** Kills the process (SIGTERM, SIGKILL after 1 s) and cleans up; idempotent. */
        @Override
        void close();
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
