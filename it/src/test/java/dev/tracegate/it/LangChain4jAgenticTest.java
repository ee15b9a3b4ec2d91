package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LangChain4j's agentic module (langchain4j-agentic 1.19.0-beta29 on LangChain4j 1.19.0; demoapp.langchain4j.AgenticApp)
 * under the agent jar: a workflow's or a supervisor's run is checked as one conversation.
 */
class LangChain4jAgenticTest {

    private static final String APP = "demoapp.langchain4j.AgenticApp";

    private static final String BUDGET = String.join("\n",
            "tracegate: 1",
            "library: newsroom",
            "contracts:",
            "  - id: newsroom.search-budget",
            "    description: At most 3 web searches per run.",
            "    guarantee: G(count(web_search) <= 3)",
            "    message: The search budget of 3 is spent.",
            "");

    private static final String MAIL_POLICY = String.join("\n",
            "library: mail-policy",
            "injection:",
            "  side-effecting:",
            "    send_email: [to]",
            "");

    @TempDir
    Path dir;

    record Run(ForkedJvm.Result result, List<JsonNode> events, String log) {}

    private Run run(String library, String options, String... args) throws IOException {
        return runWith(library, "", options, args);
    }

    /** {@code builtIn}: built-in libraries to load first, each followed by ';' ("injection;"). */
    private Run runWith(String library, String builtIn, String options, String... args) throws IOException {
        Path lib = Files.writeString(dir.resolve("lib-" + args[0] + ".yaml"), library);
        Path audit = dir.resolve(args[0] + ".jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=" + builtIn + lib + ",audit.path=" + audit + ",audit.personal-data=clear"
                        + (options.isEmpty() ? "" : "," + options))),
                ForkedJvm.agenticClasspath(), APP, args);
        List<JsonNode> events = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        if (Files.exists(audit)) {
            for (String line : Files.readAllLines(audit)) {
                JsonNode node = json.readTree(line);
                if ("event".equals(node.path("rec").asText()) && !"end".equals(node.path("kind").asText())) {
                    events.add(node);
                }
            }
        }
        StringBuilder log = new StringBuilder(r.toString()).append('\n');
        for (JsonNode e : events) {
            log.append(e.path("session").asText()).append(' ').append(e.path("kind").asText()).append(' ')
                    .append(e.path("tool").asText()).append(' ').append(e.path("decision").asText()).append(' ')
                    .append(e.path("text").asText()).append('\n');
        }
        assertThat(r.exit()).as(log.toString()).isZero();
        return new Run(r, events, log.toString());
    }

    private static List<String> blocks(List<JsonNode> events, String tool) {
        List<String> sessions = new ArrayList<>();
        for (JsonNode e : events) {
            if ("call".equals(e.path("kind").asText()) && tool.equals(e.path("tool").asText()) && "block".equals(e.path("decision").asText())) {
                sessions.add(e.path("session").asText());
            }
        }
        return sessions;
    }

    /**
     * A sequence invoked with a memory id whose writer has none of its own: before, the writer's events of every user's
     * run were checked in the one session {@code default}, so alice's run made 4 searches unblocked and bob's writer was
     * refused its first search on alice's count. Now each run is the memory id's conversation: its own 4th search is
     * blocked, and bob's run is not changed by alice's. (Checked on the old jar: no block in alice, one in default.)
     */
    @Test
    void aSequencesSubAgentsWithoutAMemoryIdAreCheckedInTheRunsMemoryId() throws IOException {
        Run run = run(BUDGET, "", "sessions", "alice,bob");
        assertThat(blocks(run.events(), "web_search")).as(run.log()).containsExactly("alice", "bob");
        assertThat(run.events()).as(run.log()).allSatisfy(e -> assertThat(e.path("session").asText()).isIn("alice", "bob"));
        assertThat(ForkedJvm.count(run.result().stdout(), "RAN web_search:")).as(run.log()).isEqualTo(6);
    }

    /**
     * A supervisor invoked without a memory id (SCORED): its planner runs in the scope's id (a UUID per invocation), and
     * so now do its sub-agent and its response scorer, which have no memory id: one session per invocation, none in
     * {@code default}. (Checked on the old jar: the researcher's call and the scorer's turn were in {@code default}.)
     */
    @Test
    void aSupervisorInvokedWithoutAMemoryIdIsOneSessionPerInvocation() throws IOException {
        Run run = run(BUDGET, "", "sup-anon", "first,second");
        Set<String> searchSessions = new LinkedHashSet<>();
        for (JsonNode e : run.events()) {
            if ("call".equals(e.path("kind").asText()) && "web_search".equals(e.path("tool").asText())) {
                searchSessions.add(e.path("session").asText());
            }
        }
        assertThat(searchSessions).as(run.log()).hasSize(2).doesNotContain("default");
        assertThat(run.events()).as(run.log()).allSatisfy(e -> assertThat(e.path("session").asText()).isIn(searchSessions));
        assertThat(run.result().stdout()).as(run.log()).contains("RAN web_search:s-first", "RAN web_search:s-second");
    }

    private static List<String> userTexts(List<JsonNode> events) {
        List<String> texts = new ArrayList<>();
        for (JsonNode e : events) {
            if ("user".equals(e.path("kind").asText())) {
                texts.add(e.path("session").asText() + ": " + e.path("text").asText());
            }
        }
        return texts;
    }

    /**
     * An address that a tool output injected reaches the next sub-agent through its prompt ({@code {{research}}}): before,
     * that filled template was a USER event, so the address counted as the user's words and the built-in injection
     * library let {@code send_email} to it pass (a single agent's was refused). Now the run's user's words are what the
     * application passed in (the topic), the sub-agents' prompts are not USER events, and the mail is refused.
     * (Checked on the old jar: RAN send_email:attacker@evil.example, USER "Write an article on tracing from research done: ...".)
     */
    @Test
    void anAddressAnAgentPassesOnIsNotTheUsersWordsInASequence() throws IOException {
        Run run = runWith(MAIL_POLICY, "injection;", "", "inj", "alice");
        assertThat(run.result().stdout()).as(run.log()).contains("RAN web_search:a").doesNotContain("RAN send_email");
        assertThat(userTexts(run.events())).as(run.log()).containsExactly("alice: tracing");
    }

    /** The same through a supervisor: its planner's prompt (with the researcher's answer) is not the user's words either. */
    @Test
    void anAddressThePlannerPassesOnIsNotTheUsersWords() throws IOException {
        Run run = runWith(MAIL_POLICY, "injection;", "", "inj-sup", "alice");
        assertThat(run.result().stdout()).as(run.log()).contains("RAN web_search:a").doesNotContain("RAN send_email");
        assertThat(userTexts(run.events())).as(run.log()).containsExactly("alice: research tracing and publish it");
    }

    /** What the application passed in is the user's words: an address the user's topic names may be mailed. */
    @Test
    void anAddressTheUserWroteIsStillTheUsers() throws IOException {
        Run run = runWith(MAIL_POLICY, "injection;", "", "inj-asked", "alice");
        assertThat(run.result().stdout()).as(run.log()).contains("RAN send_email:attacker@evil.example");
        assertThat(userTexts(run.events())).as(run.log()).containsExactly("alice: tracing, and mail the draft to attacker@evil.example");
    }

    private static final String ANSWERS = String.join("\n",
            "tracegate: 1",
            "library: answers",
            "contracts:",
            "  - id: answers.no-internal-ids",
            "    description: Answers never show internal article ids.",
            "    guarantee: G(!output_matches(\"draft-[0-9]+\"))",
            "    message: Internal article ids are not for readers.",
            "    next: Refer to the article by its title.",
            "");

    /**
     * The supervisor's planner answers with a JSON plan that LangChain4j parses into an AgentInvocation: before, an answer
     * contract judged it, and under block.style: substitute the planner got the notice in place of the JSON and the run
     * died with OutputParsingException. Now the module's own planner and scorer answers are no ASSISTANT events; the
     * agents' answers still are: the publisher's "published draft-1" is replaced by the notice, and that is the run's
     * result. (Checked on the old jar: THREW ... OutputParsingException ... Failed to parse "[tracegate] ...".)
     */
    @Test
    void aSupervisorsPlanIsNoAnswerButItsAgentsAnswersAre() throws IOException {
        Run run = run(ANSWERS, "", "plan-ids", "alice");
        assertThat(run.result().stdout()).as(run.log())
                .contains("RESULT plan-ids/alice [tracegate] Internal article ids are not for readers.")
                .doesNotContain("OutputParsingException");
        List<String> answers = new ArrayList<>();
        for (JsonNode e : run.events()) {
            if ("assistant".equals(e.path("kind").asText())) {
                answers.add(e.path("decision").asText() + " " + e.path("text").asText());
            }
        }
        assertThat(answers).as(run.log()).containsExactly("block published draft-1");
    }

    /**
     * What a plain typed AI service (an enum result) does with a blocked answer under substitute: LangChain4j cannot parse
     * the notice into the type and throws; the notice is in its message (docs: use block.style: exception there).
     */
    @Test
    void aTypedAiServiceCannotCarryTheNotice() throws IOException {
        Run run = run(ANSWERS, "", "typed", "alice");
        assertThat(run.result().stdout()).as(run.log()).contains("RESULT typed/alice THREW dev.langchain4j.service.output.OutputParsingException")
                .contains("[tracegate] Internal article ids are not for readers.");
    }

    private static final String NEWSROOM = String.join("\n",
            "tracegate: 1",
            "library: newsroom",
            "contracts:",
            "  - id: newsroom.mail-after-research",
            "    guarantee: G(call(send_email) -> O returned(web_search))",
            "  - id: newsroom.review-before-publish",
            "    guarantee: G(call(publish_article) -> O returned(review_article))",
            "");

    /**
     * The exit WARN about contract tools that no event had: a tool the model was offered (send_email, registered on the
     * researcher, unused in this run) is the application's and is not named; a tool nothing registered (publish_article,
     * review_article) still is; and an application without configured methods is not sent to them for a cause (before,
     * both: send_email was named and the hint blamed "a configured method's tool-name"; checked on the old jar).
     */
    @Test
    void theExitWarnLeavesOfferedToolsOutAndBlamesNoConfiguredMethodsWhereThereAreNone() throws IOException {
        Run run = run(NEWSROOM, "", "unused", "alice");
        String warn = null;
        for (String line : run.result().stderr().split("\n")) {
            if (line.contains("WARN") && line.contains("no tool event of this run had")) {
                warn = line;
            }
        }
        assertThat(warn).as(run.log()).isNotNull().contains("publish_article").contains("review_article")
                .doesNotContain("send_email").doesNotContain("configured method");
    }

    private static List<String> searches(List<JsonNode> events) {
        List<String> sessions = new ArrayList<>();
        for (JsonNode e : events) {
            if ("call".equals(e.path("kind").asText()) && "web_search".equals(e.path("tool").asText())) {
                sessions.add(e.path("session").asText());
            }
        }
        return sessions;
    }

    /**
     * Two users' runs at once, each a parallel workflow whose two researchers (no memory id of their own) run on the
     * application's executor: each run is its memory id's session, so the search budget blocks alice's fourth search and
     * none of bob's two, though all six calls were in flight together (every search waits until both runs reached one).
     */
    @Test
    void twoUsersParallelRunsAtOnceAreEachTheirOwnSession() throws IOException {
        Run run = run(BUDGET, "", "par-users", "alice,bob");
        assertThat(blocks(run.events(), "web_search")).as(run.log()).containsExactly("alice");
        assertThat(searches(run.events())).as(run.log()).containsExactlyInAnyOrder("alice", "alice", "alice", "alice", "bob", "bob");
        assertThat(run.events()).as(run.log()).allSatisfy(e -> assertThat(e.path("session").asText()).isIn("alice", "bob"));
        assertThat(ForkedJvm.count(run.result().stdout(), "RAN web_search:alice-")).as(run.log()).isEqualTo(3);
        assertThat(ForkedJvm.count(run.result().stdout(), "RAN web_search:bob-")).as(run.log()).isEqualTo(2);
        assertThat(run.result().stdout()).as(run.log()).contains("RESULT par-users/bob news done / papers done");
    }

    /**
     * A loop workflow (3 iterations of a researcher without a memory id, 2 searches each): every iteration's calls are
     * the run's, so the budget of 3 holds across iterations, per user (alice, then bob, each their own count).
     */
    @Test
    void aLoopsToolCallsAreInTheRunsSession() throws IOException {
        Run run = run(BUDGET, "", "loop", "alice,bob");
        assertThat(searches(run.events())).as(run.log()).containsExactly("alice", "alice", "alice", "alice", "alice", "alice",
                "bob", "bob", "bob", "bob", "bob", "bob");
        assertThat(blocks(run.events(), "web_search")).as(run.log()).containsExactly("alice", "alice", "alice", "bob", "bob", "bob");
        assertThat(ForkedJvm.count(run.result().stdout(), "RAN web_search:")).as(run.log()).isEqualTo(6);
    }

    private static final String NO_MAIL = String.join("\n",
            "tracegate: 1",
            "library: desk",
            "contracts:",
            "  - id: desk.no-mail",
            "    description: Researchers never send mail.",
            "    guarantee: G(!call(send_email))",
            "    message: Researchers do not send mail.",
            "");

    private static ForkedJvm.Result cli(String... args) {
        List<String> command = new ArrayList<>(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString()));
        command.addAll(List.of(args));
        return ForkedJvm.exec(command);
    }

    /**
     * block.style: exception inside one branch of a parallel workflow: the application gets the module's
     * AgentInvocationException with the TracegateViolation four causes deep (README, block.style); the sibling branch,
     * already running, finishes its turn (the module waits for every branch); the audit log holds
     * every call of both branches (the news search and its result, the blocked mail, the papers search, its result and
     * answer) and its chain verifies.
     */
    @Test
    void anExceptionBlockInAParallelBranchReachesTheApplicationAndTheLogIsComplete() throws IOException {
        Run run = run(NO_MAIL, "block.style=exception", "par-mail", "alice");
        assertThat(run.result().stdout()).as(run.log()).contains("RESULT par-mail/alice THREW dev.langchain4j.agentic.agent.AgentInvocationException")
                .contains("dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to send_email (contract desk.no-mail)")
                .contains("RAN web_search:papers", "RAN web_search:news").doesNotContain("RAN send_email");
        List<String> kinds = new ArrayList<>();
        for (JsonNode e : run.events()) {
            kinds.add(e.path("session").asText() + " " + e.path("kind").asText() + " " + e.path("tool").asText()
                    + " " + e.path("decision").asText());
        }
        assertThat(kinds).as(run.log()).contains("alice call send_email block")
                .containsSubsequence("alice call web_search pass", "alice return web_search pass", "alice call send_email block")
                .anySatisfy(k -> assertThat(k).startsWith("alice assistant"));
        assertThat(kinds.stream().filter(k -> k.startsWith("alice call web_search"))).as(run.log()).hasSize(2);
        assertThat(kinds.stream().filter(k -> k.startsWith("alice return web_search"))).as(run.log()).hasSize(2);
        ForkedJvm.Result verify = cli("audit", "verify", dir.resolve("par-mail.jsonl").toString());
        assertThat(verify.exit()).as(verify.toString()).isZero();
        assertThat(verify.stdout()).as(verify.toString()).contains("chain intact");
    }

    /** Async agents (run on the module's executor): their tool calls are the run's, so the budget holds across both. */
    @Test
    void asyncAgentsToolCallsAreInTheRunsSession() throws IOException {
        Run run = run(BUDGET, "", "async", "alice,bob");
        assertThat(searches(run.events())).as(run.log()).containsExactly("alice", "alice", "alice", "alice", "bob", "bob", "bob", "bob");
        assertThat(blocks(run.events(), "web_search")).as(run.log()).containsExactly("alice", "bob");
        assertThat(run.events()).as(run.log()).allSatisfy(e -> assertThat(e.path("session").asText()).isIn("alice", "bob"));
    }

    private static List<String> answers(List<JsonNode> events) {
        List<String> answers = new ArrayList<>();
        for (JsonNode e : events) {
            if ("assistant".equals(e.path("kind").asText())) {
                answers.add(e.path("session").asText() + " " + e.path("decision").asText() + " " + e.path("text").asText());
            }
        }
        return answers;
    }

    /**
     * A supervisor with SupervisorResponseStrategy.SUMMARY answers the application with its planner's done response, which
     * is no agent's answer and (d385eec) no ASSISTANT event of the planner: before, no answer contract saw what the
     * application got, and it got "Published the newest article as draft-7." under G(!output_matches("draft-[0-9]+")).
     * Now the outermost run's result, text no agent of the run answered, is checked as the run's answer in the run's
     * session: the application gets the notice; the publisher's answer was checked once, when it gave it. (Checked on
     * the previous jar: RESULT summary/alice Published the newest article as draft-7., one ASSISTANT, the publisher's.)
     */
    @Test
    void aSummarySupervisorsAnswerIsCheckedAsTheRunsAnswer() throws IOException {
        Run run = run(ANSWERS, "", "summary", "alice");
        assertThat(run.result().stdout()).as(run.log())
                .contains("RESULT summary/alice [tracegate] Internal article ids are not for readers.")
                .doesNotContain("draft-7");
        assertThat(answers(run.events())).as(run.log())
                .containsExactly("alice pass published", "alice block Published the newest article as draft-7.");
    }

    /** The same under block.style: exception: the application's invocation throws the TracegateViolation itself. */
    @Test
    void aSummarySupervisorsBlockedAnswerThrowsToTheApplication() throws IOException {
        Run run = run(ANSWERS, "block.style=exception", "summary", "alice");
        assertThat(run.result().stdout()).as(run.log())
                .contains("RESULT summary/alice THREW dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the answer (contract answers.no-internal-ids)")
                .doesNotContain("RESULT summary/alice Published");
    }

    /**
     * A workflow's result that its agents' answers were combined into (a parallel workflow's output function) is the run's
     * answer too, one ASSISTANT after the agents' own; an agent's answer that is the run's result (a sequence's output key)
     * is not recorded twice.
     */
    @Test
    void aWorkflowsCombinedResultIsTheRunsAnswerAndAnAgentsIsNotRecordedTwice() throws IOException {
        Run par = run(BUDGET, "", "par-users", "bob");
        assertThat(answers(par.events())).as(par.log()).hasSize(3).endsWith("bob pass news done / papers done");
        Run seq = run(BUDGET, "", "sessions", "alice");
        assertThat(answers(seq.events())).as(seq.log()).hasSize(2).allSatisfy(a -> assertThat(a).startsWith("alice pass "))
                .last().asString().startsWith("alice pass article text");
    }

    /**
     * A conditional workflow inside a sequence: the branch taken (the writer) has its calls in the run's session, the
     * budget holds across the researcher and it, per user; the branch not taken (the mailer) runs nothing.
     */
    @Test
    void aConditionalBranchsToolCallsAreInTheRunsSession() throws IOException {
        Run run = run(BUDGET, "", "cond", "alice,bob");
        assertThat(searches(run.events())).as(run.log()).containsExactly("alice", "alice", "alice", "alice", "bob", "bob", "bob", "bob");
        assertThat(blocks(run.events(), "web_search")).as(run.log()).containsExactly("alice", "bob");
        assertThat(run.result().stdout()).as(run.log()).doesNotContain("RAN send_email");
    }

    /** Agents whose web_search comes from a ToolProvider (per request): their calls are the run's, each run its own count. */
    @Test
    void aToolProvidersToolCallsAreInTheRunsSession() throws IOException {
        Run run = run(BUDGET, "", "provider", "alice,bob");
        assertThat(searches(run.events())).as(run.log()).containsExactly("alice", "alice", "alice", "alice", "bob", "bob", "bob", "bob");
        assertThat(blocks(run.events(), "web_search")).as(run.log()).containsExactly("alice", "bob");
        assertThat(run.events()).as(run.log()).allSatisfy(e -> assertThat(e.path("session").asText()).isIn("alice", "bob"));
        assertThat(ForkedJvm.count(run.result().stdout(), "RAN web_search:")).as(run.log()).isEqualTo(6);
    }

    /**
     * A sequence whose last agent streams (TokenStream, no memory id): its tool calls and its streamed answer are the
     * run's, in the run's session, and the budget holds across the researcher and it.
     */
    @Test
    void aStreamingSubAgentsCallsAndAnswerAreInTheRunsSession() throws IOException {
        Run run = run(BUDGET, "", "stream", "alice,bob");
        assertThat(searches(run.events())).as(run.log()).containsExactly("alice", "alice", "alice", "alice", "bob", "bob", "bob", "bob");
        assertThat(blocks(run.events(), "web_search")).as(run.log()).containsExactly("alice", "bob");
        assertThat(run.events()).as(run.log()).allSatisfy(e -> assertThat(e.path("session").asText()).isIn("alice", "bob"));
        assertThat(answers(run.events())).as(run.log()).anySatisfy(a -> assertThat(a).startsWith("alice pass article text"));
        assertThat(run.result().stdout()).as(run.log()).contains("RESULT stream/alice article text");
    }

    /**
     * Two runs of one workflow with the SAME memory id at once (the module gives both the memory id's one scope), each
     * answering differently: each run's answer is its agent's, checked once when the agent gave it. Before, the scope
     * held one list of answers, the newest run's: run 1's result was looked up in run 2's list and recorded a second
     * time (and a result of run 2 that run 1's agent had given would not have been checked as run 2's). Run 1's search
     * waits until run 2 has started and reached its search, run 2's until run 1 has returned. (Checked on the old jar:
     * "shared pass article by run-1" twice.)
     */
    @Test
    void twoRunsAtOnceWithTheSameMemoryIdEachKeepTheirOwnAnswers() throws IOException {
        Run run = run(BUDGET, "", "same-id", "x");
        assertThat(run.result().stdout()).as(run.log())
                .contains("RESULT same-id/1 article by run-1", "RESULT same-id/2 article by run-2");
        assertThat(answers(run.events())).as(run.log())
                .containsExactlyInAnyOrder("shared pass article by run-1", "shared pass article by run-2");
    }

    /**
     * An agent whose IMMEDIATE tool ends its turn answers with the tool's result (LangChain4j returns it as the agent's
     * String), which is the run's result here: checked once, as the tool ended, and not again as the run's answer. Before,
     * the run's end did not know it as an agent's answer and recorded it a second time: bob's "published" twice, and for
     * alice the notice that replaced "published as draft-3" as one more answer. (Checked on the old jar.)
     */
    @Test
    void anImmediateToolsAnswerThatIsTheRunsResultIsRecordedOnce() throws IOException {
        Run run = run(ANSWERS, "", "immediate", "alice,bob");
        assertThat(run.result().stdout()).as(run.log()).contains("RAN publish:alice-article", "RAN publish:bob-article")
                .contains("RESULT immediate/alice [tracegate] Internal article ids are not for readers.")
                .contains("RESULT immediate/bob published").doesNotContain("draft-3");
        assertThat(answers(run.events())).as(run.log())
                .containsExactly("alice block published as draft-3", "bob pass published");
    }
}
