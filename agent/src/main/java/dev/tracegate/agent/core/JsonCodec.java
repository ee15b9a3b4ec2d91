package dev.tracegate.agent.core;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * JSON to and from plain JDK values with the agent's own (relocated) Jackson. Thread-safe. The mapper
 * is created on first use: most hosts never need it, and creating it costs start-up time. Writing the
 * common shapes of tool arguments skips the mapper ({@link JsonText}), with the same text.
 */
public final class JsonCodec {

    private volatile ObjectMapper mapper;

    public String write(Object value) {
        if (value == null) {
            return "{}";
        }
        String common = JsonText.write(value);
        if (common != null) {
            return common;
        }
        try {
            return mapper().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            // a value Jackson cannot write (a type with no serializer, a cycle) must not refuse the call: it is
            // written as its text, each map entry on its own so the others keep their structure (trial7 finding 15)
            try {
                return mapper().writeValueAsString(writable(value));
            } catch (JsonProcessingException again) {
                throw new IllegalArgumentException("tracegate: cannot write " + value.getClass().getName() + " as JSON: " + e.getOriginalMessage(), e);
            }
        }
    }

    /** {@code value} if the mapper can write it; a map with each entry made writable; else its {@code toString()}. */
    private Object writable(Object value) {
        if (value == null) return null;
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) copy.put(String.valueOf(e.getKey()), writable(e.getValue()));
            return copy;
        }
        try {
            mapper().writeValueAsString(value);
            return value;
        } catch (JsonProcessingException | RuntimeException e) {
            return String.valueOf(value);
        }
    }

    public Object read(String json) {
        try {
            return mapper().readValue(json, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("tracegate: not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Types a configured method's parameters and results commonly have that Jackson alone refuses (it needs its jsr310
     * and jdk8 modules): java.time values as their ISO text (what those modules write by default, with dates as text),
     * an Optional as its value or null.
     */
    private static SimpleModule everydayTypes() {
        SimpleModule m = new SimpleModule("tracegate-everyday-types");
        m.addSerializer(java.time.temporal.TemporalAccessor.class, ToStringSerializer.instance);
        m.addSerializer(java.time.temporal.TemporalAmount.class, ToStringSerializer.instance);
        m.addSerializer(java.time.ZoneId.class, ToStringSerializer.instance);
        m.addSerializer(java.time.Clock.class, ToStringSerializer.instance);
        @SuppressWarnings({"rawtypes", "unchecked"})
        Class<Optional<?>> optional = (Class) Optional.class;
        m.addSerializer(optional, new JsonSerializer<Optional<?>>() {
            @Override
            public void serialize(Optional<?> value, JsonGenerator gen, SerializerProvider provider) throws IOException {
                if (value.isPresent()) provider.defaultSerializeValue(value.get(), gen);
                else gen.writeNull();
            }
        });
        return m;
    }

    public ObjectMapper mapper() {
        ObjectMapper m = mapper;
        if (m == null) {
            synchronized (this) {
                m = mapper;
                if (m == null) {
                    m = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS).registerModule(everydayTypes());
                    mapper = m;
                }
            }
        }
        return m;
    }
}
