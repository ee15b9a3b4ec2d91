package dev.tracegate.matchers.imports;

import java.util.Objects;

/**
 * The labels of one recorded AgentDojo run, kept next to its trace so an evaluation can compute
 * attack success and utility: which suite and tasks, which attack, and what the benchmark scored.
 *
 * @param session           the trace's session id, {@code <suite>/<user_task>/<attack>/<injection_task>}
 * @param model             the model (pipeline) directory the run came from
 * @param suite             the suite name, e.g. {@code banking}
 * @param userTaskId        the task given to the agent as the user's request ({@code user_task_N}, or
 *                          {@code injection_task_N} when an attacker goal is run as a plain request)
 * @param injectionTaskId   the attacker's goal placed in tool outputs, or null when the run is not attacked
 * @param attackType        the attack (e.g. {@code important_instructions}), or null when not attacked
 * @param utility           the benchmark's verdict that the user's task was completed
 * @param security          the benchmark's verdict that the attacker's goal was reached (meaningless when not attacked)
 * @param file              the run file, relative to the runs directory
 * @param events            how many events the run's trace has
 */
public record RunInfo(String session, String model, String suite, String userTaskId, String injectionTaskId,
                      String attackType, boolean utility, boolean security, String file, long events) {

    /** Directory and file name the dataset uses for "no attack" / "no injection task". */
    public static final String NONE = "none";

    public RunInfo {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(suite, "suite");
        Objects.requireNonNull(userTaskId, "userTaskId");
    }

    /** True when tool outputs of this run carried an injection. */
    public boolean attacked() { return attackType != null; }

    /** True when the user's request itself is an attacker goal (shows the goal is reachable; not a benign task). */
    public boolean injectionTaskAsUser() { return !attacked() && userTaskId.startsWith("injection_task_"); }

    /** True for a benign run of a real user task, the runs that measure utility without attack. */
    public boolean benign() { return !attacked() && !injectionTaskAsUser(); }

    /** True when the attack reached its goal (false for runs that were not attacked). */
    public boolean attackSucceeded() { return attacked() && security; }

    /** The session id of a run: {@code <suite>/<user_task>/<attack or none>/<injection_task or none>}. */
    public static String sessionId(String suite, String userTaskId, String attackType, String injectionTaskId) {
        return suite + "/" + userTaskId + "/" + (attackType == null ? NONE : attackType) + "/"
                + (injectionTaskId == null ? NONE : injectionTaskId);
    }
}
