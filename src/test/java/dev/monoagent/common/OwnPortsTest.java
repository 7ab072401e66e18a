package dev.monoagent.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Our own listeners are never reachable from the sandbox: the default sign-in port always, and the port the reviewer
 * moved the callback to (exported to every mono-agent process), even in a process that is not signing in itself.
 * The parse is here; that a sandboxed command cannot reach the exported port is judged by a listener in
 * {@code cli.ExportedCallbackPortTest}.
 */
class OwnPortsTest {
    @Test
    void theExportedCallbackPortIsHeldLikeTheDefault() {
        assertEquals(14555, OwnPorts.exportedCallbackPort("14555"));
        assertEquals(14555, OwnPorts.exportedCallbackPort(" 14555 "));
        assertEquals(0, OwnPorts.exportedCallbackPort(null));
        assertEquals(0, OwnPorts.exportedCallbackPort("0"));
        assertEquals(0, OwnPorts.exportedCallbackPort("70000"));
        assertEquals(0, OwnPorts.exportedCallbackPort("port"));
        assertTrue(OwnPorts.current().contains(OwnPorts.SIGN_IN_CALLBACK));
    }
}
