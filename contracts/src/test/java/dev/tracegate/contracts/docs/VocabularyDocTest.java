package dev.tracegate.contracts.docs;

import dev.tracegate.matchers.predicate.Vocabulary;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The predicate table of matchers/README.md, which LIBRARY.md sends library authors to, is the vocabulary the
 * loader accepts, form for form and word for word (trial finding C12: it lacked undeclared_purpose, used by
 * the gdpr built-in). Lives here because the libraries are what the table documents.
 */
class VocabularyDocTest {
    @Test
    void theReadmeTableIsTheVocabulary() throws Exception {
        Path readme = Path.of("..", "matchers", "README.md");
        String text = Files.readString(readme);
        int start = text.indexOf("| form | type | meaning |");
        assertThat(start).as("vocabulary table in %s", readme).isGreaterThanOrEqualTo(0);
        int end = text.indexOf("\n\n", start);
        assertThat(text.substring(start, end + 1)).isEqualTo(Vocabulary.markdown());
    }
}
