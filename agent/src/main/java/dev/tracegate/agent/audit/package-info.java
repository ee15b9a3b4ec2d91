/**
 * The audit log: one hash-chained JSONL record per decision, written off the hot path, verifiable line
 * by line, and readable back as a trace.
 *
 * <p>Canonical byte form (the full description, with the record types, is in {@code agent/CONFIG.md},
 * "The audit log"): a line is UTF-8 JSON without LF, ended by one LF; it begins
 * {@code {"prev":"<64 hex>"} and ends {@code ,"hash":"<64 hex>"}}. {@code hash} is the lower-case hex
 * SHA-256 of the line's bytes before {@code ,"hash":"}; {@code prev} is the previous line's {@code hash},
 * 64 zeros on the first line (formats {@code tracegate-audit/3} and {@code /2}; segments of {@code tracegate-audit/1},
 * which the verifier still reads, chain by the SHA-256 of the previous line's whole bytes, LF excluded). Format 3
 * writes a library's contract ids and atom keys once in a {@code library} record and each event's atoms and
 * verdicts against it (a hex bit string, one letter per contract). The
 * verifier hashes the bytes as found and never re-serialises, so these two rules are the whole contract
 * between writer and verifier.
 *
 * <p>Entry points: {@link dev.tracegate.agent.audit.AuditWriter} (producers call {@code append}),
 * {@link dev.tracegate.agent.audit.AuditRecord} (what they append),
 * {@link dev.tracegate.agent.audit.AuditVerifier} ({@code tracegate audit verify}) and
 * {@link dev.tracegate.agent.audit.AuditTrace} (replay).
 */
package dev.tracegate.agent.audit;
