package demoapp.proxied;

/** Shaped as Hibernate's lazy proxy (Byte Buddy, not synthetic): a subclass of the entity that calls the real method. */
public class Tools$HibernateProxy$x1 extends Tools {
    @Override
    public String lookup(String session, String customer) {
        return super.lookup(session, customer);
    }
}
