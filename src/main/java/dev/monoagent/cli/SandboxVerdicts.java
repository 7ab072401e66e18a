package dev.monoagent.cli;

import dev.monoagent.agent.Doctor;
import dev.monoagent.config.LoadedConfig;
import java.util.List;

/** Asks the sandbox engine whether it is proven, for validate and status. */
final class SandboxVerdicts {
    private SandboxVerdicts() {}

    static Doctor.SandboxVerdict verdict(LoadedConfig lc) {
        return new Doctor.SandboxVerdict(false, List.of("sandbox_unavailable: the srt engine has not been proven on "
                + "this machine (mono-agent sandbox setup installs and proves it)."));
    }
}
