package dev.monoagent.sandbox;

/** What became of {@link Sandbox#start}: a running sandboxed process, or nothing started (fail-closed). */
public sealed interface StartOutcome permits StartOutcome.Started, ExecOutcome.PrepareFailed {

    /** The process is running under the policy. */
    record Started(SandboxProcess process, dev.monoagent.common.Effective mode) implements StartOutcome {}
}
