package dev.monoagent.cli;

import dev.monoagent.agent.Doctor;
import dev.monoagent.common.EventSink;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.SandboxStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * Asks the sandbox engine whether it is proven, for validate and start. {@code validate} proves it (opening the
 * engine runs the self-check unless a pass for this engine digest and policy is cached); {@code start}'s preflight
 * only reads the on-disk state, because the instance proves the engine itself.
 */
final class SandboxVerdicts {
    private SandboxVerdicts() {}

    static Doctor.SandboxVerdict verdict(LoadedConfig lc, boolean prove, CliContext ctx) {
        if (lc.config().sandbox().mode() == SandboxMode.OFF) {
            return new Doctor.SandboxVerdict(false, List.of());
        }
        SandboxStatus st;
        if (prove) {
            try (Sandbox s = Sandbox.open(lc, EventSink.NONE, HostEnv.from(ctx.env()))) {
                st = s.status();
            }
        } else {
            st = Sandbox.quickStatus(lc, HostEnv.from(ctx.env()));
        }
        boolean proven = st.ready();
        List<String> details = new ArrayList<>();
        details.add("effective: " + st.effective().wire());
        details.add("engine: " + st.engine().line() + ", source: " + st.engine().source().wire());
        if (proven && st.lastVerified() != null) {
            details.add("self-check passed at " + st.lastVerified());
        }
        if (st.reason() != null) {
            details.add(st.reason().startsWith("sandbox_unavailable") ? st.reason()
                    : "sandbox_unavailable: " + st.reason());
        }
        return new Doctor.SandboxVerdict(proven, details);
    }
}
