package dev.tracegate.agent.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** JSON to and from plain JDK values with the agent's own (relocated) Jackson. Thread-safe. */
public final class JsonCodec {

    private final ObjectMapper mapper = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    public String write(Object value) {
        if (value == null) {
            return "{}";
        }
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("tracegate: cannot write " + value.getClass().getName() + " as JSON: " + e.getOriginalMessage(), e);
        }
    }

    public Object read(String json) {
        try {
            return mapper.readValue(json, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("tracegate: not JSON: " + e.getOriginalMessage(), e);
        }
    }

    public ObjectMapper mapper() {
        return mapper;
    }
}
