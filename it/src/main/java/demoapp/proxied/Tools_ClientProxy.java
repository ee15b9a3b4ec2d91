package demoapp.proxied;

/**
 * Shaped as Quarkus ArC's client proxy of a normal-scoped bean: a subclass of the bean that hands each call to the bean
 * instance (ArC generates it at build time with Gizmo, which marks the class ACC_SYNTHETIC; {@link ProxiedApp} defines
 * it so). Never named in code that runs before it is defined.
 */
public class Tools_ClientProxy extends Tools {
    private final Tools delegate;

    public Tools_ClientProxy(Tools delegate) {
        this.delegate = delegate;
    }

    @Override
    public String lookup(String session, String customer) {
        return delegate.lookup(session, customer);
    }
}
