package dev.monoagent.common;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;

/**
 * One JSON line per event, for the run log and {@code --json} output: the record's components plus
 * {@code "type"} (the record's simple name). Instants are ISO-8601 strings; enums their names in lower case.
 */
public final class EventJson {
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new SimpleModule()
            .addSerializer(Instant.class, new JsonSerializer<>() {
                @Override
                public void serialize(Instant v, JsonGenerator g, SerializerProvider p) throws IOException {
                    g.writeString(v.toString());
                }
            })
            .addSerializer(Violation.Tier.class, lower())
            .addSerializer(Violation.Kind.class, lower()));

    private EventJson() {}

    private static <E extends Enum<E>> JsonSerializer<E> lower() {
        return new JsonSerializer<>() {
            @Override
            public void serialize(E v, JsonGenerator g, SerializerProvider p) throws IOException {
                g.writeString(v.name().toLowerCase(java.util.Locale.ROOT));
            }
        };
    }

    /** The shared mapper (records and Instants supported). */
    public static ObjectMapper mapper() {
        return JSON;
    }

    /** Any value (event, violation, probe result) as one compact JSON line. */
    public static String line(Object value) {
        try {
            if (value instanceof Event e) {
                ObjectNode node = JSON.createObjectNode();
                node.put("type", e.getClass().getSimpleName());
                node.setAll((ObjectNode) JSON.valueToTree(e));
                return JSON.writeValueAsString(node);
            }
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException("event not serialisable: " + value, ex);
        }
    }
}
