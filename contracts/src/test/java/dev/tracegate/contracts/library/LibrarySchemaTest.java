package dev.tracegate.contracts.library;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** The shipped JSON Schema names exactly the keys the loader accepts, so editors and loader agree. */
class LibrarySchemaTest {

    @Test
    void schemaKeysMatchTheLoader() throws Exception {
        JsonNode schema;
        try (InputStream in = getClass().getResourceAsStream("/dev/tracegate/contracts/library.schema.json")) {
            schema = new ObjectMapper().readTree(in);
        }
        JsonNode p = schema.get("properties");
        assertThat(names(p)).isEqualTo(new TreeSet<>(LibraryReader.TOP));
        assertThat(names(p.at("/contracts/items/properties"))).isEqualTo(new TreeSet<>(LibraryReader.CONTRACT));
        assertThat(names(p.at("/settings/properties"))).isEqualTo(new TreeSet<>(LibraryReader.SETTINGS));
        assertThat(names(p.at("/context/items/properties"))).isEqualTo(new TreeSet<>(LibraryReader.LATCH));
        assertThat(names(p.at("/context/items/properties/on/properties"))).isEqualTo(new TreeSet<>(LibraryReader.LATCH_ON));
        assertThat(names(p.at("/gdpr/properties"))).isEqualTo(new TreeSet<>(LibraryReader.GDPR));
        assertThat(names(p.at("/injection/properties"))).isEqualTo(new TreeSet<>(LibraryReader.INJECTION));
        assertThat(names(p.at("/injection/properties/provenance/properties"))).isEqualTo(new TreeSet<>(LibraryReader.PROVENANCE));
        Set<String> endorse = new TreeSet<>();
        p.at("/injection/properties/provenance/properties/endorse/enum").forEach(n -> endorse.add(n.asText()));
        assertThat(endorse).isEqualTo(new TreeSet<>(LibraryReader.ENDORSE));
        Set<String> strategies = new TreeSet<>();
        p.at("/contracts/items/properties/strategy/enum").forEach(n -> strategies.add(n.asText()));
        assertThat(strategies).isEqualTo(new TreeSet<>(LibraryReader.STRATEGIES));
    }

    @Test
    void contractsAreRequiredExceptInAPolicyOnlyLibrary() throws Exception {
        JsonNode schema;
        try (InputStream in = getClass().getResourceAsStream("/dev/tracegate/contracts/library.schema.json")) {
            schema = new ObjectMapper().readTree(in);
        }
        // as LibraryReader: 'library' always; 'contracts' (non-empty) unless a gdpr: or injection: section is there
        assertThat(schema.get("required").toString()).isEqualTo("[\"library\"]");
        assertThat(schema.at("/if/not/anyOf").toString()).isEqualTo("[{\"required\":[\"gdpr\"]},{\"required\":[\"injection\"]}]");
        assertThat(schema.at("/then/required").toString()).isEqualTo("[\"contracts\"]");
        assertThat(schema.at("/then/properties/contracts/minItems").asInt()).isEqualTo(1);
        assertThat(LibraryReader.read("p.yaml", "library: p\ninjection:\n  side-effecting: {send: [to]}\n").contracts()).isEmpty();
    }

    private static Set<String> names(JsonNode object) {
        Set<String> out = new TreeSet<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
