package bootbench;

import org.springframework.ai.tool.annotation.Tool;
import org.springframework.stereotype.Component;

/** The service's one tool. */
@Component
public class CatalogueTools {

    @Tool(description = "Search the catalogue")
    public String search(String query) {
        return "3 items for " + query;
    }
}
