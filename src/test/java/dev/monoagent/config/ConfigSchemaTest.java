package dev.monoagent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The committed schema must equal the one generated from the records. To refresh it after changing a record:
 * {@code mvn -q test -Dtest=ConfigSchemaTest -Dschema.update=true}.
 */
class ConfigSchemaTest {
    static final Path COMMITTED = Path.of(System.getProperty("monoagent.projectDir", "."))
            .resolve("docs/mono-agent.config.schema.json");

    @Test
    void committedSchemaIsCurrent() throws Exception {
        String generated = SchemaGenerator.schemaText();
        if (Boolean.getBoolean("schema.update")) {
            Files.writeString(COMMITTED, generated);
        }
        assertEquals(generated, Files.exists(COMMITTED) ? Files.readString(COMMITTED) : "",
                "docs/mono-agent.config.schema.json is stale; regenerate with "
                        + "mvn -q test -Dtest=ConfigSchemaTest -Dschema.update=true");
    }

    @Test
    void schemaDescribesDefaultsEnumsAndClosedObjects() throws Exception {
        JsonNode s = SchemaGenerator.schema();
        JsonNode sandbox = s.at("/properties/sandbox");
        assertFalse(sandbox.at("/additionalProperties").asBoolean(true));
        assertEquals("fail-closed", sandbox.at("/properties/fallback/default").asText());
        assertEquals("[\"native\",\"off\"]", sandbox.at("/properties/mode/enum").toString());
        assertEquals(4, sandbox.at("/properties/denyWrite/default").size());
        assertEquals(300000, s.at("/properties/monitors/properties/maxWakeIntervalMs/maximum").asLong());
        assertEquals("model", s.at("/properties/runtime/required/0").asText());
    }
}
