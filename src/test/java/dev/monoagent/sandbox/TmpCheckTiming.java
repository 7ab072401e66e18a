package dev.monoagent.sandbox;

import dev.monoagent.common.ProbeResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class TmpCheckTiming {
    @Test
    void time() throws Exception {
        HostEnv env = TestEngine.env();
        HostTools tools = ((HostTools.Ok) HostTools.find(env)).tools();
        SrtRuntime.Resolution res = new SrtRuntime(env).resolve();
        for (int i = 0; i < 6; i++) {
            long t0 = System.nanoTime();
            List<ProbeResult> probes = SelfCheck.run(env, tools, res, env.which("setsid"));
            double ms = (System.nanoTime() - t0) / 1e6;
            SelfCheck.awaitClosed(java.time.Duration.ofSeconds(30));
            StringBuilder sb = new StringBuilder();
            for (ProbeResult p : probes) {
                if (p.id().equals("engine") || p.id().equals("denied-write-blocked") || p.id().equals("git-dir-readonly")) {
                    sb.append(p.id()).append('=').append(p.millis()).append(' ');
                }
            }
            System.out.printf("CHECK %d total %.0f ms pass=%s %s load %s%n", i, ms, probes.stream().allMatch(ProbeResult::passed), sb, SandboxBenchmark.load());
            Thread.sleep(1000);
        }
    }
}
