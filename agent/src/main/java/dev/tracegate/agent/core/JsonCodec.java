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
import java.util.Optional;

/**
 * JSON to and from plain JDK values with the agent's own (relocated) Jackson. Thread-safe. The mapper
 * is created on first use: most hosts never need it, and creating it costs start-up time. Values are written
 * without it: the common shapes of tool arguments by {@link JsonText} (with Jackson's text), the rest by
 * {@link ValueText}, within its bounds.
 */
public final class JsonCodec {

    private volatile ObjectMapper mapper;

    /** The value's JSON text, within {@link ValueText}'s bounds (a cut value has its markers; see {@link #written}). */
    public String write(Object value) {
        return written(value).json();
    }

    /**
     * The value's JSON text and whether it was cut: the common shapes as Jackson writes them ({@link JsonText}), anything
     * else by {@link ValueText}, which reads no iterator, stream or getter and bounds depth, elements and length. Jackson is
     * not used to write: it would call the host's getters and iterate its iterators, with no bound (trial14).
     */
    public ValueText.Written written(Object value) {
        if (value == null) {
            return EMPTY;
        }
        String common = JsonText.write(value);
        return common != null ? new ValueText.Written(common, null) : ValueText.write(value);
    }

    private static final ValueText.Written EMPTY = new ValueText.Written("{}", null);

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
