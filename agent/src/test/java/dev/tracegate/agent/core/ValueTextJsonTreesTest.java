package dev.tracegate.agent.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial46 05: an argument that is a library's JSON tree (the Anthropic SDK's JsonValue, Jackson's JsonNode, Gson's
 * JsonElement, org.json's JSONObject) was written by its internals ({"values":{"recipient":{"value":...}}}, Jackson's
 * {"_nodeFactory":...,"_children":...}, or "[not read: ...ObjectNode]" since a JsonNode is an Iterable), so no contract
 * could read an argument by name. Such a value is written as its JSON, by the field that holds its content.
 */
class ValueTextJsonTreesTest {
    private static final String JSON = "{\"recipient\":\"DE89\",\"amount\":90,\"rate\":1.5,\"ok\":true,\"none\":null,"
            + "\"tags\":[\"a\",2],\"nested\":{\"k\":\"v\"}}";
    private final ObjectMapper mapper = new ObjectMapper();

    @Test
    void jacksonGsonAndOrgJsonTreesAreWrittenAsTheirJson() throws Exception {
        JsonNode jackson = mapper.readTree(JSON);
        JsonElement gson = JsonParser.parseString(JSON);
        JSONObject orgJson = new JSONObject(JSON);
        assertThat(ValueText.write(jackson).json()).isEqualTo(JSON);
        assertThat(mapper.readTree(ValueText.write(gson).json())).isEqualTo(jackson);
        assertThat(mapper.readTree(ValueText.write(orgJson).json())).as("org.json's map keeps no order").isEqualTo(jackson);
        assertThat(ValueText.write(new JSONArray("[1,\"x\",null]")).json()).isEqualTo("[1,\"x\",null]");
        assertThat(ValueText.write(mapper.readTree("\"text\"")).json()).isEqualTo("\"text\"");
        assertThat(ValueText.write(mapper.missingNode()).json()).isEqualTo("null");
        assertThat(ValueText.write(JSONObject.NULL).json()).isEqualTo("null");
        // inside an application's object and a map, as an argument among others is
        assertThat(ValueText.write(Map.of("input", jackson)).json()).isEqualTo("{\"input\":" + JSON + "}");
        for (Object tree : new Object[] {jackson, gson, orgJson}) {
            assertThat(ValueText.jsonTree(tree)).as(tree.getClass().getName()).isTrue();
            assertThat(ValueText.write(tree).cut()).isNull();
        }
        assertThat(ValueText.jsonTree(Map.of())).isFalse();
    }

    /** Gson keeps a parsed number as its text: written as the number when it is one, never as text spliced in unchecked. */
    @Test
    void aNumberKeptAsTextIsWrittenOnlyWhenItIsAJsonNumber() {
        assertThat(ValueText.write(JsonParser.parseString("{\"n\":12.50e3}")).json()).isEqualTo("{\"n\":12.50e3}");
        // a LazilyParsedNumber whose text is not a number (Gson makes one from any text it is given) stays a string
        Object forged = new com.google.gson.internal.LazilyParsedNumber("0,\"to\":\"eve\"");
        assertThat(ValueText.write(Map.of("amount", forged)).json()).isEqualTo("{\"amount\":\"0,\\\"to\\\":\\\"eve\\\"\"}");
        for (String ok : new String[] {"0", "-1", "1.25", "3e8", "2E-3"}) assertThat(ValueText.jsonNumber(ok)).as(ok).isTrue();
        for (String no : new String[] {"", "-", "01", "1.", ".5", "1e", "0x10", "1 ", "NaN"}) assertThat(ValueText.jsonNumber(no)).as(no).isFalse();
    }

    /** A tree that contains itself is cut where the cycle closes, as any container is. */
    @Test
    void aTreeThatContainsItselfIsCut() {
        JSONArray self = new JSONArray();
        self.put(1);
        self.put(self);
        ValueText.Written w = ValueText.write(self);
        assertThat(w.cut()).startsWith("a cycle");
        assertThat(w.json()).startsWith("[1,");
    }
}
