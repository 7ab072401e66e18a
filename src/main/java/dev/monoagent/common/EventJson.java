package dev.monoagent.common;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * One JSON line per event, for the run log and {@code --json} output: the record's components plus
 * {@code "type"} (the record's simple name). Instants are ISO-8601 strings; enums their wire names (violation
 * tier/kind in lower case). {@link #read} is the one reader of both the run log and {@code --json} output.
 */
public final class EventJson {
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new SimpleModule()
            .addSerializer(Instant.class, new JsonSerializer<>() {
                @Override
                public void serialize(Instant v, JsonGenerator g, SerializerProvider p) throws IOException {
                    g.writeString(v.toString());
                }
            })
            .addDeserializer(Instant.class, new JsonDeserializer<>() {
                @Override
                public Instant deserialize(JsonParser p, DeserializationContext c) throws IOException {
                    return Instant.parse(p.getValueAsString());
                }
            })
            .addSerializer(Violation.Tier.class, lower())
            .addSerializer(Violation.Kind.class, lower())
            .addDeserializer(Violation.Tier.class, upper(Violation.Tier.class))
            .addDeserializer(Violation.Kind.class, upper(Violation.Kind.class)))
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** Every event record by its {@code type} name. */
    private static final Map<String, Class<?>> TYPES = types();

    private static Map<String, Class<?>> types() {
        Map<String, Class<?>> m = new HashMap<>();
        for (Class<?> c : Event.class.getPermittedSubclasses()) {
            m.put(c.getSimpleName(), c);
        }
        return Map.copyOf(m);
    }

    private static <E extends Enum<E>> JsonDeserializer<E> upper(Class<E> type) {
        return new JsonDeserializer<>() {
            @Override
            public E deserialize(JsonParser p, DeserializationContext c) throws IOException {
                return Enum.valueOf(type, p.getValueAsString().toUpperCase(java.util.Locale.ROOT));
            }
        };
    }

    private EventJson() {}

    private static <E extends Enum<E>> JsonSerializer<E> lower() {
        return new JsonSerializer<>() {
            @Override
            public void serialize(E v, JsonGenerator g, SerializerProvider p) throws IOException {
                g.writeString(v.name().toLowerCase(java.util.Locale.ROOT));
            }
        };
    }

    /**
     * The event on one JSON line (as written by {@link #line}).
     *
     * @throws IllegalArgumentException naming the problem when the line is not an event
     */
    public static Event read(String line) {
        try {
            JsonNode n = JSON.readTree(line);
            String type = n == null ? null : n.path("type").asText(null);
            Class<?> c = type == null ? null : TYPES.get(type);
            if (c == null) {
                throw new IllegalArgumentException("not an event line (type " + type + "): " + line);
            }
            ObjectNode body = ((ObjectNode) n).deepCopy();
            body.remove("type");
            return (Event) JSON.treeToValue(body, c);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("unreadable event line: " + e.getOriginalMessage(), e);
        }
    }

    /** Whether {@code type} names an event of this build (a reader keeps other types generically). */
    public static boolean knows(String type) {
        return TYPES.containsKey(type);
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
