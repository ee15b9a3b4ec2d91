package dev.tracegate.agent.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

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
            throw new IllegalArgumentException("tracegate: cannot write " + value.getClass().getName() + " as JSON: " + e.getOriginalMessage(), e);
        }
    }

    public Object read(String json) {
        try {
            return mapper().readValue(json, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("tracegate: not JSON: " + e.getOriginalMessage(), e);
        }
    }

    public ObjectMapper mapper() {
        ObjectMapper m = mapper;
        if (m == null) {
            synchronized (this) {
                m = mapper;
                if (m == null) {
                    m = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
                    mapper = m;
                }
            }
        }
        return m;
    }
}
