package dev.monoagent.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Our own listeners are never reachable from the sandbox: the default sign-in port always, and the port the reviewer
 * moved the callback to (exported to every mono-agent process), even in a process that is not signing in itself.
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
        int exported = OwnPorts.exportedCallbackPort(System.getenv(OwnPorts.CALLBACK_PORT_VARIABLE));
        assertTrue(exported == 0 || OwnPorts.current().contains(exported), OwnPorts.current().toString());
    }
}
