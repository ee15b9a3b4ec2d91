package dev.tracegate.matchers.predicate;

/** The {@code named_link} atom: a fetch opens a link inside a record the user named ({@link Grounding#namedLink}). */
final class NamedLink extends Nodes.Pred {
    @Override int eval(Frame f) { return f.g.namedLink(f) ? Nodes.TRUE : Nodes.FALSE; }
}
