package dev.monoagent.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.MonoConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolPolicyTest {

    private static ToolPolicy valid(List<String> allowed, List<String> denied) {
        var r = ToolPolicy.of(new MonoConfig.Tools(allowed, denied));
        return assertInstanceOf(ToolPolicy.Result.Valid.class, r).policy();
    }

    private static List<ToolPolicy.Error> invalid(List<String> allowed, List<String> denied) {
        var r = ToolPolicy.of(new MonoConfig.Tools(allowed, denied));
        return assertInstanceOf(ToolPolicy.Result.Invalid.class, r).errors();
    }

    @Test
    void defaultsAllowEverything() {
        ToolPolicy p = valid(List.of("*"), List.of());
        assertEquals(ToolNames.ALL, p.enabled());
        assertEquals("All tools allowed.", p.summary());
        assertEquals(ToolPolicy.ALL, assertInstanceOf(ToolPolicy.Result.Valid.class,
                ToolPolicy.of(MonoConfig.Tools.DEFAULTS)).policy());
    }

    @Test
    void omittedListsMeanDefaults() {
        ToolPolicy p = assertInstanceOf(ToolPolicy.Result.Valid.class, ToolPolicy.of(null)).policy();
        assertEquals("All tools allowed.", p.summary());
    }

    @Test
    void denyWinsOverAllowAll() {
        ToolPolicy p = valid(List.of("*"), List.of("Bash", "exec"));
        assertFalse(p.allows("Bash"));
        assertFalse(p.allows("Exec"));
        assertTrue(p.allows("Read"));
        assertEquals("All tools allowed (except: Bash, Exec).", p.summary());
    }

    @Test
    void explicitListIsExactlyThose() {
        ToolPolicy p = valid(List.of("Read", "grep"), List.of());
        assertEquals(List.of("Read", "Grep"), p.enabled());
        assertEquals("Allowed tools: Read, Grep.", p.summary());
        assertFalse(p.allows("Bash"));
        assertTrue(p.allows("GREP"));
    }

    @Test
    void emptyListIsChatOnly() {
        ToolPolicy p = valid(List.of(), List.of());
        assertTrue(p.chatOnly());
        assertEquals("No tools allowed; the agent is chat-only.", p.summary());
    }

    @Test
    void nameInBothListsIsInvalid() {
        List<ToolPolicy.Error> errors = invalid(List.of("Read", "Bash"), List.of("bash"));
        assertEquals(1, errors.size());
        assertEquals("invalid_tool_policy", errors.get(0).code());
        assertTrue(errors.get(0).message().startsWith("Tools cannot be both allowed and disallowed."));
        assertTrue(errors.get(0).message().contains("Bash"));
    }

    @Test
    void caseInsensitiveDuplicatesAreInvalid() {
        List<ToolPolicy.Error> errors = invalid(List.of("Read", "read"), List.of());
        assertEquals(1, errors.size());
        assertEquals("invalid_tool_policy", errors.get(0).code());
        assertEquals("tools.allowedTools", errors.get(0).field());
        assertEquals(1, invalid(List.of("*"), List.of("Bash", "BASH")).size());
    }

    @Test
    void unknownNameGetsDidYouMean() {
        List<ToolPolicy.Error> errors = invalid(List.of("Bsh"), List.of());
        assertEquals(1, errors.size());
        assertTrue(errors.get(0).message().contains("unknown tool \"Bsh\"; did you mean \"Bash\"?"),
                errors.get(0).message());
        assertTrue(invalid(List.of("*"), List.of("NodeRpl")).get(0).message().contains("did you mean \"NodeRepl\"?"));
    }

    @Test
    void unknownNameWithoutCloseMatchListsKnownTools() {
        String m = invalid(List.of("Teleport"), List.of()).get(0).message();
        assertFalse(m.contains("did you mean"));
        assertTrue(m.contains("Known tools: Read, Write"));
    }

    @Test
    void starMustStandAlone() {
        assertEquals("invalid_tool_policy", invalid(List.of("*", "Read"), List.of()).get(0).code());
        assertEquals("invalid_tool_policy", invalid(List.of("*"), List.of("*")).get(0).code());
    }

    @Test
    void denyingEveryListedToolIsNotAllowedButDenyingOthersIs() {
        ToolPolicy p = valid(List.of("Read"), List.of("Bash"));
        assertEquals(List.of("Read"), p.enabled());
        assertEquals("Allowed tools: Read.", p.summary());
    }

    @Test
    void errorsConvertToConfigErrors() {
        var e = invalid(List.of("Bsh"), List.of()).get(0).toConfigError();
        assertEquals("tools.allowedTools", e.field());
        assertTrue(e.message().startsWith("[invalid_tool_policy] "));
    }
}
